// limina.js: writing Limina skills in JavaScript.
//
// A package is a list of skills, each a handler from the parsed JSON input to a JSON-able
// output. The SDK's entry, `bindings/app.js`, exports them as the component's `skill`
// interface with `exportPackage(skills, host)`, `host` holding the host imports.
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
        return JSON.stringify(invokeSkill(skills, name, JSON.parse(input), { ...host, ctx }));
      } catch (err) {
        // Anything thrown that is not a skill-error variant would trap the component.
        if (err instanceof SkillError && CODES.has(err.code)) {
          throw { tag: err.code, val: err.message };
        }
        // A host import that refused carries the host's world-error as its payload.
        if (err && err.payload && typeof err.payload.tag === "string") {
          const code = err.payload.tag === "forbidden" ? "forbidden" : "handler-error";
          throw { tag: code, val: String(err.payload.val) };
        }
        throw { tag: "handler-error", val: String((err && err.message) || err) };
      }
    },
    runHook() {
      return null; // this glue declares no hooks
    },
  };
}
