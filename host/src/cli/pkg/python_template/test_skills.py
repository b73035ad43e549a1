"""Native tests of the handlers: `limina pkg test` in the package folder."""

import unittest

import skills


class HelloTest(unittest.TestCase):
    def test_hello_greets_by_name(self):
        self.assertEqual(skills.hello({"name": "Ada"}, None), {"greeting": "Hello, Ada!"})

    def test_every_skill_is_named_under_the_package(self):
        for skill in skills.SKILLS:
            self.assertTrue(skill.name.startswith("{{name}}."), skill.name)


if __name__ == "__main__":
    unittest.main()
