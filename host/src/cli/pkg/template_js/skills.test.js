// Native tests of `{{name}}`: `limina pkg test` runs them with `node --test`.
import test from "node:test";
import assert from "node:assert/strict";
import { getPrompt, invokeSkill, readResource, SkillError } from "./bindings/limina.js";
import { prompts, resources, skills } from "./skills.js";

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

test("the about page names the skill", () => {
  const { page } = readResource(resources, "limina://pkg/{{name}}/about");
  assert.match(page, /{{name}}\.hello/);
});

test("the greet prompt asks for the skill", () => {
  const [message] = getPrompt(prompts, "{{name}}.greet", { name: "Ada" });
  assert.equal(message.role, "user");
  assert.match(message.content.val, /^Greet Ada with the {{name}}\.hello tool/);
});
