"""Native tests of the rules handlers: `limina pkg test` in this folder."""

import unittest

import skills
from limina_skill import InvalidInput
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
