// The component's entry: exports the skills of skills.js as the WIT `skill` interface.
// Host imports a handler needs are passed in the second argument (see skills.js).
import log from "limina:skill/log@0.1.0";
import { exportPackage } from "./bindings/limina.js";
import { skills } from "./skills.js";

export const skill = exportPackage(skills, {
  log: (message) => log.log("info", message),
});
