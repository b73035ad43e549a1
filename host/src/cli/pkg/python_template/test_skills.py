"""Native tests of the handlers: `limina pkg test` in the package folder."""

import unittest

import limina_skill
import skills


class HelloTest(unittest.TestCase):
    def test_hello_greets_by_name(self):
        self.assertEqual(skills.hello({"name": "Ada"}, None), {"greeting": "Hello, Ada!"})

    def test_every_skill_is_named_under_the_package(self):
        for skill in skills.SKILLS:
            self.assertTrue(skill.name.startswith("{{name}}."), skill.name)


class OffersTest(unittest.TestCase):
    def test_the_about_page_names_the_skill(self):
        uri = "limina://pkg/{{name}}/about"
        _, page = limina_skill.read_resource(skills.RESOURCES, uri, None)
        self.assertIn("{{name}}.hello", page)

    def test_the_greet_prompt_asks_for_the_skill(self):
        arguments = {"name": "Ada"}
        [message] = limina_skill.get_prompt(skills.PROMPTS, "{{name}}.greet", arguments, None)
        self.assertEqual(message.role, "user")
        self.assertIn("Greet Ada with the {{name}}.hello tool", message.content)


if __name__ == "__main__":
    unittest.main()
