// `{{name}}`: a Limina skill package in JavaScript.
//
// Each skill is a handler from its input (already validated by the host against
// `inputSchema`) to its output (matching `outputSchema`). Handlers get `(input, host)`:
// `host` holds the host imports the SDK's entry (bindings/app.js) passes in, so tests can
// pass their own. Besides skills, a package may serve pages (`resources`, read with
// `resources/read`) and prompts a client offers its user (`prompts`).
import { invalidInput, user } from "./bindings/limina.js";

export const skills = [
  {
    name: "{{name}}.hello",
    description: "Greet someone by name.",
    inputSchema: {
      type: "object",
      properties: {
        name: { type: "string", minLength: 1, maxLength: 100, description: "Who to greet." },
      },
      required: ["name"],
      additionalProperties: false,
    },
    outputSchema: {
      type: "object",
      properties: { greeting: { type: "string" } },
      required: ["greeting"],
    },
    handler(input, host) {
      if (input.name.trim() === "") throw invalidInput("`name` must not be blank");
      host.log?.("info", `greeting ${input.name}`);
      return { greeting: `Hello, ${input.name}!` };
    },
  },
];

// URIs are the package's own: `limina://pkg/{{name}}/...`. A `{variable}` in one makes a
// template (one path segment each), and `complete(variable, prefix)` completes it.
export const resources = [
  {
    uri: "limina://pkg/{{name}}/about",
    name: "About {{name}}",
    description: "What this package does.",
    read: () => "# {{name}}\n\n{{name}} greets people by name with `{{name}}.hello`.\n",
  },
];

export const prompts = [
  {
    name: "{{name}}.greet",
    description: "Greet someone with this package's tool.",
    arguments: [{ name: "name", description: "Who to greet" }],
    get: (args) => [
      user(`Greet ${args.name ?? "friend"} with the {{name}}.hello tool and tell them what you can do.`),
    ],
    complete: (_argument, prefix) => ["Ada", "Grace"].filter((n) => n.startsWith(prefix)),
  },
];
