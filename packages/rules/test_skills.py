"""Native tests of the rules handlers: `limina pkg test` in this folder."""

import unittest

import limina_skill
import skills
from limina_skill import Embedded, InvalidInput
from rules_data import RULES, SYSTEMS


class SearchTest(unittest.TestCase):
    def test_a_keyword_finds_the_entry_titled_with_it_first(self):
        out = skills.search({"query": "cover"}, None)
        self.assertEqual(out["results"][0]["id"], "skirmish.cover")
        self.assertGreaterEqual(out["total"], 1)

    def test_the_system_filter_keeps_only_that_system(self):
        out = skills.search({"query": "bane", "system": "limina-core"}, None)
        self.assertTrue(out["results"])
        self.assertTrue(all(r["system"] == "limina-core" for r in out["results"]))

    def test_limit_caps_the_results_but_not_the_total(self):
        out = skills.search({"query": "the", "limit": 2}, None)
        self.assertEqual(len(out["results"]), 2)
        self.assertGreater(out["total"], 2)

    def test_nothing_matching_is_an_empty_answer(self):
        self.assertEqual(skills.search({"query": "spaceship"}, None), {"results": [], "total": 0})

    def test_a_query_without_words_is_invalid(self):
        with self.assertRaises(InvalidInput):
            skills.search({"query": "?!"}, None)


class GetTest(unittest.TestCase):
    def test_get_returns_the_whole_entry(self):
        rule = skills.get({"id": "core.checks"}, None)
        self.assertEqual(rule["title"], "Checks")
        self.assertIn("d20", rule["text"])

    def test_an_unknown_id_is_invalid_and_lists_the_known_ones(self):
        with self.assertRaises(InvalidInput) as refused:
            skills.get({"id": "core.nope"}, None)
        self.assertIn("core.checks", str(refused.exception))


class PagesTest(unittest.TestCase):
    def test_a_rule_page_holds_its_text_and_links_its_related_rules(self):
        resource, page = limina_skill.read_resource(
            skills.RESOURCES, "limina://pkg/rules/rule/core.checks", None
        )
        self.assertEqual(resource.uri, skills.RULE_URI)
        self.assertTrue(page.startswith("# Checks\n"), page)
        self.assertIn("roll a d20", page)
        self.assertIn("(limina://pkg/rules/rule/core.boons)", page)

    def test_the_index_links_every_rule(self):
        _, page = limina_skill.read_resource(skills.RESOURCES, skills.INDEX_URI, None)
        for rule in RULES:
            self.assertIn(skills.rule_uri(rule["id"]), page)

    def test_a_missing_page_is_none_and_a_foreign_uri_names_no_resource(self):
        _, page = limina_skill.read_resource(
            skills.RESOURCES, "limina://pkg/rules/rule/core.nope", None
        )
        self.assertIsNone(page)
        resource, _ = limina_skill.read_resource(
            skills.RESOURCES, "limina://pkg/rules/rule/a/b", None
        )
        self.assertIsNone(resource)

    def test_rule_ids_complete_by_prefix(self):
        values = limina_skill.complete(skills.RESOURCES, skills.RULE_URI, "id", "skirmish.t")
        self.assertEqual(values, ["skirmish.turns", "skirmish.terrain"])


class LookUpTest(unittest.TestCase):
    def test_the_prompt_embeds_the_page_and_asks_the_question(self):
        messages = limina_skill.get_prompt(
            skills.PROMPTS, "rules.lookUp", {"rule": "skirmish.cover", "question": "Half cover?"}, None
        )
        self.assertEqual([m.role for m in messages], ["user", "user"])
        self.assertIsInstance(messages[0].content, Embedded)
        self.assertEqual(messages[0].content.uri, "limina://pkg/rules/rule/skirmish.cover")
        self.assertIn("Half cover?", messages[1].content)

    def test_an_unknown_rule_is_invalid_and_lists_the_known_ids(self):
        with self.assertRaises(InvalidInput) as refused:
            limina_skill.get_prompt(skills.PROMPTS, "rules.lookUp", {"rule": "core.nope"}, None)
        self.assertIn("core.checks", str(refused.exception))

    def test_the_rule_argument_completes(self):
        self.assertEqual(
            limina_skill.complete(skills.PROMPTS, "rules.lookUp", "rule", "core.r"),
            ["core.rest"],
        )


class DataTest(unittest.TestCase):
    def test_ids_are_unique_and_related_ids_exist(self):
        ids = [r["id"] for r in RULES]
        self.assertEqual(len(ids), len(set(ids)))
        for rule in RULES:
            self.assertIn(rule["system"], SYSTEMS)
            for other in rule["related"]:
                self.assertIn(other, ids, rule["id"])


if __name__ == "__main__":
    unittest.main()
