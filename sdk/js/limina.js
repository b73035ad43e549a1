// limina.js: writing Limina skills in JavaScript.
//
// A package is a list of skills, each a handler from the parsed JSON input to a JSON-able
// output, and optionally the resources (pages) and prompts it serves. The SDK's entry,
// `bindings/app.js`, exports them as the component's `skill`, `resources` and `prompts`
// interfaces (contract `limina:skill` 0.2.0) with `exportPackage(skills, host)`,
// `exportResources(resources, host)` and `exportPrompts(prompts, host)`, `host` holding the
// host imports.
//
// Handlers receive `(input, host)`: `host` is the object given to exportPackage (the host
// imports), so `skills.js` stays plain JavaScript that `node --test` runs with a fake host.
// The host validates the input against `inputSchema` before the handler runs and the output
// against `outputSchema` after.
//
// `limina pkg build` copies this file into the package's `bindings/` folder on every build.
// Written for Limina.

/** A call the skill refuses; `code` is one of the WIT skill-error cases. */
export class SkillError extends Error {
  constructor(code, message) {
    super(message);
    this.code = code;
  }
}

/** The input is well-formed but not acceptable: say which field and why. */
export const invalidInput = (message) => new SkillError("invalid-input", message);
/** The caller may not do this. */
export const forbidden = (message) => new SkillError("forbidden", message);
/** Something the input names does not exist. */
export const notFound = (message) => new SkillError("not-found", message);

const CODES = new Set(["invalid-input", "forbidden", "handler-error", "not-found"]);

/**
 * Runs the skill `name` of `skills` on a parsed input: returns its output or throws a
 * SkillError. Tests call this directly.
 */
export function invokeSkill(skills, name, input, host = {}) {
  const skill = skills.find((s) => s.name === name);
  if (!skill) throw notFound(`this package has no skill \`${name}\``);
  return skill.handler(input, host);
}

// Content blocks: what a skill may return besides its output (`withContent`), and what a
// prompt's messages hold. Each is the WIT `content-block` variant; a plain string is text.

/** Text for a person or a model. */
export const text = (value) => ({ tag: "text", val: String(value) });
/** A picture: PNG (`image/png`) or JPEG (`image/jpeg`) bytes. */
export const image = (data, mimeType = "image/png") => ({
  tag: "image",
  val: { mimeType, data: bytes(data) },
});
/** A sound: WAV bytes. */
export const audio = (data, mimeType = "audio/wav") => ({
  tag: "audio",
  val: { mimeType, data: bytes(data) },
});
/** A link to a resource the client may read. */
export const link = (uri, name, { description = null, mimeType = null } = {}) => ({
  tag: "resource-link",
  val: { uri, name, description, mimeType },
});
/** A resource given inline: `body` is a string (text) or bytes. */
export const embedded = (uri, mimeType, body) => ({
  tag: "embedded",
  val: { uri, mimeType, body: resourceBody(body) },
});

/** A handler's output with content blocks besides it (at most 16 and 4 MiB together). */
export class WithContent {
  constructor(output, content = []) {
    this.output = output;
    this.content = content;
  }
}
export const withContent = (output, content) => new WithContent(output, content);

function bytes(data) {
  return data instanceof Uint8Array ? data : Uint8Array.from(data);
}

function resourceBody(body) {
  return typeof body === "string" ? { tag: "text", val: body } : { tag: "blob", val: bytes(body) };
}

function block(content) {
  return typeof content === "string" ? text(content) : content;
}

/** A prompt message from the user. */
export const user = (content) => ({ role: "user", content: block(content) });
/** A prompt message put in the assistant's mouth. */
export const assistant = (content) => ({ role: "assistant", content: block(content) });

/** What a thrown error becomes for the caller: a WIT skill-error variant. */
function refusal(err) {
  // Anything thrown that is not a skill-error variant would trap the component.
  if (err instanceof SkillError && CODES.has(err.code)) {
    return { tag: err.code, val: err.message };
  }
  // A host import that refused carries the host's world-error as its payload.
  if (err && err.payload && typeof err.payload.tag === "string") {
    const code = err.payload.tag === "forbidden" ? "forbidden" : "handler-error";
    return { tag: code, val: String(err.payload.val) };
  }
  return { tag: "handler-error", val: String((err && err.message) || err) };
}

/** The WIT `skill` interface over `skills`; `host` is passed to every handler. */
export function exportPackage(skills, host = {}) {
  return {
    describe() {
      return {
        skills: skills.map((s) => ({
          name: s.name,
          version: s.version ?? "0.1.0",
          category: s.category ?? "",
          description: s.description,
          permissions: s.permissions ?? [],
          inputSchema: JSON.stringify(s.inputSchema),
          outputSchema: JSON.stringify(s.outputSchema),
          annotations: {
            readOnly: s.readOnly ?? true,
            destructive: false,
            idempotent: s.readOnly ?? true,
            openWorld: false,
          },
        })),
        hooks: [],
      };
    },
    invoke(name, input, ctx) {
      try {
        let output = invokeSkill(skills, name, JSON.parse(input), { ...host, ctx });
        let content = [];
        if (output instanceof WithContent) {
          content = output.content.map(block);
          output = output.output;
        }
        return { structured: JSON.stringify(output), content };
      } catch (err) {
        throw refusal(err);
      }
    },
    runHook() {
      return null; // this glue declares no hooks
    },
  };
}

// Resources and prompts (contract 0.2.0).
//
// A resource is `{uri, name, read, mimeType?, title?, description?, permissions?, complete?}`:
// its URI starts with `limina://pkg/<package>/`, and `{variables}` in it make a template whose
// variables each stand for one path segment. `read(uri, host)` returns the page of `uri` (a
// string for text, a Uint8Array for bytes), or null when there is none (the client gets the
// protocol's resource-not-found). `complete(variable, prefix)` lists a template's values.
//
// A prompt is `{name, description, get, arguments?, title?, permissions?, complete?}`, named
// `<package>.<prompt>`; `arguments` are `{name, description?, required?}`. `get(args, host)`
// fills it in from `args`, an object of the given arguments (the host checked that every
// required one is there and no other), and returns messages: `user(...)`, `assistant(...)`.
// `complete(argument, prefix)` lists an argument's values.

/** The values of the template's variables in `uri`, or null when `uri` is not one it names. */
export function templateValues(template, uri) {
  const values = {};
  let rest = uri;
  let pattern = template;
  for (;;) {
    const open = pattern.indexOf("{");
    if (open < 0) return rest === pattern ? values : null;
    const close = pattern.indexOf("}", open);
    if (close < 0 || !rest.startsWith(pattern.slice(0, open))) return null;
    const after = rest.slice(open);
    const slash = after.indexOf("/");
    const end = slash < 0 ? after.length : slash;
    if (end === 0) return null;
    values[pattern.slice(open + 1, close)] = after.slice(0, end);
    rest = after.slice(end);
    pattern = pattern.slice(close + 1);
  }
}

/** The page `uri` gives among `resources`: `{resource, page}`, page null when there is none. */
export function readResource(resources, uri, host = {}) {
  const resource = resources.find((r) => templateValues(r.uri, uri) !== null);
  if (!resource) return { resource: null, page: null };
  return { resource, page: resource.read(uri, host) ?? null };
}

/** The messages of the prompt `name` among `prompts` filled in with `args`. */
export function getPrompt(prompts, name, args, host = {}) {
  const prompt = prompts.find((p) => p.name === name);
  if (!prompt) throw notFound(`this package has no prompt \`${name}\``);
  return prompt.get(args, host).map((m) => ({ role: m.role, content: block(m.content) }));
}

/** Values `offer` (a resource template or a prompt) completes `name` with, from `prefix`. */
function completeOffer(offer, name, prefix) {
  if (!offer || !offer.complete) return [];
  try {
    return offer.complete(name, prefix).map(String).filter((v) => v.startsWith(prefix));
  } catch {
    // Completion has no error to give (and QuickJS no console to tell).
    return [];
  }
}

/** Values the resource template `template` among `resources` completes `variable` with. */
export const completeVariable = (resources, template, variable, prefix) =>
  completeOffer(resources.find((r) => r.uri === template), variable, prefix);

/** Values the prompt `name` among `prompts` completes `argument` with. */
export const completeArgument = (prompts, name, argument, prefix) =>
  completeOffer(prompts.find((p) => p.name === name), argument, prefix);

/** The WIT `resources` interface over `resources`; `host` (with `ctx`) goes to `read`. */
export function exportResources(resources = [], host = {}) {
  return {
    listResources() {
      return resources.map((r) => ({
        uri: r.uri,
        template: r.uri.includes("{"),
        name: r.name,
        title: r.title ?? null,
        description: r.description ?? null,
        mimeType: r.mimeType ?? "text/markdown",
        permissions: r.permissions ?? [],
      }));
    },
    readResource(uri, ctx) {
      try {
        const { resource, page } = readResource(resources, uri, { ...host, ctx });
        if (page === null) return null;
        return { uri, mimeType: resource.mimeType ?? "text/markdown", body: resourceBody(page) };
      } catch (err) {
        throw refusal(err);
      }
    },
    completeVariable(uriTemplate, variable, prefix) {
      return completeVariable(resources, uriTemplate, variable, prefix);
    },
  };
}

/** The WIT `prompts` interface over `prompts`; `host` (with `ctx`) goes to `get`. */
export function exportPrompts(prompts = [], host = {}) {
  return {
    listPrompts() {
      return prompts.map((p) => ({
        name: p.name,
        title: p.title ?? null,
        description: p.description ?? null,
        arguments: (p.arguments ?? []).map((a) => ({
          name: a.name,
          description: a.description ?? null,
          required: a.required ?? false,
        })),
        permissions: p.permissions ?? [],
      }));
    },
    getPrompt(name, args, ctx) {
      try {
        return getPrompt(prompts, name, Object.fromEntries(args), { ...host, ctx });
      } catch (err) {
        throw refusal(err);
      }
    },
    completeArgument(name, argument, prefix) {
      return completeArgument(prompts, name, argument, prefix);
    },
  };
}
