// app.js: the component's entry, from the Limina JavaScript SDK (contract `limina:skill`
// 0.2.0). It exports the package's `skills` (from `skills.js`) as the WIT `skill` interface,
// its `resources` and `prompts` (when `skills.js` exports them) as those interfaces, and hands
// every handler, `read` and `get` the host's imports as its second argument, `host`:
//
//   host.perception()             the caller's view, parsed (null when it has no body)
//   host.log(level, message)      a log line: "debug", "info", "warn" or "error"
//   host.random()                 a u64 from the host's (seedable) randomness
//   host.progress(done, total, message)   progress of a long call
//   host.scene, host.ecs, host.render, host.physics, host.assets, host.agents, host.ui,
//   host.camera, host.audio, host.trace, host.state    every host interface, as the WIT
//                                 bindings give it
//
// plus `host.ctx`, the call context. `limina pkg build` writes this file into `bindings/` and
// builds from it; a package that keeps its own `app.js` is built from that instead.
// componentize-qjs links every host interface of the world whether or not it is imported, so
// importing them all here adds nothing to the component.
// Written for Limina.
import agents from "limina:skill/agents@0.2.0";
import assets from "limina:skill/assets@0.2.0";
import audio from "limina:skill/audio@0.2.0";
import camera from "limina:skill/camera@0.2.0";
import ecs from "limina:skill/ecs@0.2.0";
import log from "limina:skill/log@0.2.0";
import physics from "limina:skill/physics@0.2.0";
import progress from "limina:skill/progress@0.2.0";
import random from "limina:skill/random@0.2.0";
import render from "limina:skill/render@0.2.0";
import scene from "limina:skill/scene@0.2.0";
import state from "limina:skill/state@0.2.0";
import trace from "limina:skill/trace@0.2.0";
import ui from "limina:skill/ui@0.2.0";
import { exportPackage, exportPrompts, exportResources } from "./limina.js";
import * as offered from "../skills.js";

/** The host imports a handler reaches through its `host` argument. */
export const host = {
  // JSON text: the caller's view, or `null` when it has no body. Throws an Error whose
  // `payload` is the world-error (`{tag: "forbidden", val}`) without `agent.read`.
  perception: () => JSON.parse(agents.perception()),
  log: (level, message) => log.log(level, message),
  random: () => random.nextU64(),
  progress: (done, total, message) => progress.report(done, total, message),
  scene,
  ecs,
  render,
  physics,
  assets,
  agents,
  ui,
  camera,
  audio,
  trace,
  state,
};

export const skill = exportPackage(offered.skills, host);
export const resources = exportResources(offered.resources ?? [], host);
export const prompts = exportPrompts(offered.prompts ?? [], host);
