// Native tests of `{{name}}`: `limina pkg test` runs them with `node --test`.
import test from "node:test";
import assert from "node:assert/strict";
import { invokeSkill, SkillError } from "./bindings/limina.js";
import { skills } from "./skills.js";

test("hello greets by name", () => {
  assert.deepEqual(invokeSkill(skills, "{{name}}.hello", { name: "Ada" }), {
    greeting: "Hello, Ada!",
  });
});

test("a blank name is invalid input", () => {
  assert.throws(
    () => invokeSkill(skills, "{{name}}.hello", { name: "  " }),
    (err) => err instanceof SkillError && err.code === "invalid-input",
  );
});

test("an unknown skill is not found", () => {
  assert.throws(
    () => invokeSkill(skills, "{{name}}.nope", {}),
    (err) => err instanceof SkillError && err.code === "not-found",
  );
});
