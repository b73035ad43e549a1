// The component's entry: exports the skills of skills.js as the WIT `skill` interface.
// Host imports the handlers use are passed in the second argument (see skills.js).
import agents from "limina:skill/agents@0.1.0";
import log from "limina:skill/log@0.1.0";
import { exportPackage } from "./bindings/limina.js";
import { skills } from "./skills.js";

export const skill = exportPackage(skills, {
  // JSON text: the caller's view, or `null` when it has no body. Throws an Error whose
  // `payload` is the world-error (`{tag: "forbidden", val}`) without `agent.read`.
  perception: () => JSON.parse(agents.perception()),
  log: (level, message) => log.log(level, message),
});
