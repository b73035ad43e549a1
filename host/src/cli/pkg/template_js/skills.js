// `{{name}}`: a Limina skill package in JavaScript.
//
// Each skill is a handler from its input (already validated by the host against
// `inputSchema`) to its output (matching `outputSchema`). Handlers get `(input, host)`:
// `host` holds the host imports the SDK's entry (bindings/app.js) passes in, so tests can
// pass their own.
import { invalidInput } from "./bindings/limina.js";

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
