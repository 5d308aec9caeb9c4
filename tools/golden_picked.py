"""Cases picked by hand for the golden corpus: inputs where smarteval once differed from
trec_eval, each recorded through the real trec_eval 9.0.8 and 10.0 by

    python tools/golden.py --picked --trec-eval-9 PATH --trec-eval-10 PATH

into ``tests/data/golden/trec_eval-9.0.8.picked.jsonl`` and ``trec_eval-10.0.picked.jsonl``
(``tests/test_golden.py`` runs them as it runs the random ones). Each case: a name (its id is
``VERSION-p_NAME``), why it is here, trec_eval's arguments without the two files (``zscores``
stands for the case's -Z file), the qrels (or preferences), the run, and the -Z file if any.
A case that valgrind finds reading memory trec_eval never wrote is recorded all the same,
marked ``"valgrind"`` with the first error: its output is what the native binary printed.
"""

from __future__ import annotations

#: qrels_prefs with a level below 0: the lowest class (-1) holds fewer documents than R
NEGATIVE_LEVELS = ("0099 0 DOC12-02784 0\n0099 0 DOC12-56169 3\n0099 0 DOC12-57771 1\n"
                   "0099 0 DOC12-57914 0\n0099 0 DOC12-21644 -1\n")
NEGATIVE_RUN = "0099 Q0 DOC12-56169 6 24.400732 alpha\n"

#: the lowest class of group g0 is short: the reading goes on into g1's and g2's ranks
NEXT_GROUPS = ("q0 g1 d4 0\nq0 g2 d1 4\nq0 g1 d0 2\nq0 g0 d1 -1\nq0 g0 d0 -3\nq0 g2 d2 0\n"
               "q0 g0 d5 -1\nq0 g1 d5 2\nq0 g1 d3 -3\nq0 g0 d3 2\nq0 g0 d4 2\n")
NEXT_GROUPS_RUN = "q0 Q0 d5 1 0 r\nq0 Q0 d0 2 13 r\nq0 Q0 d3 3 11 r\nq0 Q0 d4 4 12 r\n"

#: q1's one group is short: the reading goes on into what q0 left in trec_eval's buffer
EARLIER_QUERY = ("q0 g1 d2 -1\nq0 g2 d2 -1\nq0 g1 d3 -1\nq1 g0 d5 2\nq0 g0 d0 2\n"
                 "q1 g0 d6 3\nq0 g1 d0 -1\nq1 g0 d3 -1\nq0 g0 d2 2\nq1 g0 d7 0\n"
                 "q0 g2 d0 -1\nq0 g2 d3 0\nq1 g0 d1 0\nq0 g0 d3 2\n")
EARLIER_QUERY_RUN = ("q0 Q0 d3 1 14 r\nq0 Q0 d0 2 4 r\nq1 Q0 d3 1 8 r\nq1 Q0 d8 2 8 r\n"
                     "q1 Q0 d5 3 16 r\nq1 Q0 d6 4 18 r\nq1 Q0 d1 5 4 r\nq1 Q0 d0 6 19 r\n"
                     "q1 Q0 d4 7 1 r\nq1 Q0 d2 8 14 r\n")

#: prefs_avgjg_Rnonrel_ret too reads past a short class (up to an unretrieved document)
RETRIEVED_ONLY = ("q1 g1 d5 1\nq0 g2 d1 1\nq0 g1 d1 0\nq0 g2 d0 0\nq0 g1 d2 1\nq0 g2 d6 1\n"
                  "q0 g1 d4 1\nq0 g1 d0 0\nq1 g0 d2 -1\nq0 g0 d4 1\nq0 g0 d1 -1\nq1 g1 d1 0\n"
                  "q0 g0 d7 0\nq0 g1 d3 1\nq0 g0 d6 0\nq0 g1 d7 0\nq1 g1 d7 1\nq0 g1 d5 0\n"
                  "q1 g0 d8 1\nq0 g2 d7 0\nq1 g0 d3 -1\nq0 g1 d6 -1\nq0 g2 d4 0\nq0 g0 d2 1\n")
RETRIEVED_ONLY_RUN = ("q0 Q0 d4 1 3 r\nq0 Q0 d5 2 2 r\nq0 Q0 d7 3 3 r\nq0 Q0 d0 4 10 r\n"
                      "q0 Q0 d6 5 9 r\nq0 Q0 d1 6 9 r\nq0 Q0 d2 7 5 r\nq0 Q0 d3 8 18 r\n"
                      "q1 Q0 d4 1 19 r\nq1 Q0 d2 2 6 r\n")

#: -R prefs: equivalence-classes groups with levels below 0 beside a preference array
PREFS_FILE = ("q0 g1 s1 d9 -1\nq0 g0 s0 d7 0\nq0 g1 s1 d3 -1\nq0 g2 s0 d6 1\nq0 g2 s0 d9 -1\n"
              "q0 g1 s0 d9 -1\nq0 g1 s1 d1 -1\nq0 g0 s0 d4 -1\nq0 g0 s0 d2 1\nq0 g2 s0 d5 1\n"
              "q0 g1 s0 d1 -1\nq0 g0 s0 d0 0\nq0 g0 s0 d9 0\nq0 g1 s1 d8 -1\nq0 g0 s0 d10 0\n"
              "q0 g2 s0 d2 0\nq0 g1 s1 d4 1\nq0 g1 s0 d8 -1\nq0 g0 s0 d3 0\nq0 g0 s0 d6 1\n"
              "q0 g2 s0 d1 -1\nq0 g2 s0 d8 1\nq0 g2 s0 d3 -1\nq0 g0 s0 d1 -1\nq0 g0 s0 d8 1\n"
              "q0 g2 s0 d7 1\nq0 g2 s0 d10 1\n")
PREFS_RUN = ("q0 Q0 d11 1 11 r\nq0 Q0 d6 2 2 r\nq0 Q0 d9 3 9 r\nq0 Q0 d2 4 8 r\n"
             "q0 Q0 d0 5 15 r\nq0 Q0 d1 6 14 r\nq0 Q0 d7 7 8 r\n")

#: a run that shares no query with the qrels
NO_SHARED = "1 0 a 1\n1 0 b 0\n2 0 c 1\n"
NO_SHARED_RUN = "5 Q0 a 1 1 r\n5 Q0 b 2 0.5 r\n"

#: query 2 judged only -1: under -l -1 its retrieved unjudged document x is relevant,
#: num_rel is 0
BELOW_0 = "1 0 a 1\n1 0 b 0\n2 0 e -1\n"
BELOW_0_RUN = "1 Q0 a 1 3 r\n1 Q0 b 2 2 r\n2 Q0 x 1 1 r\n2 Q0 e 2 0.5 r\n"
BELOW_0_ZSCORES = "1 map 0.5 0.2\n2 map 0.3 0.1\n1 binG 0.2 0\n2 binG 0.1 0\n"
BELOW_0_JG = "1 u1 a 1\n1 u2 a 0\n1 u2 b 1\n2 u1 e -1\n2 u2 e 0\n"

PICKED: list[dict] = [
    {"name": "rnonrel_beyond_the_buffer", "argv": ["-R", "qrels_prefs", "-m",
                                                   "prefs_avgjg_Rnonrel"],
     "qrels": NEGATIVE_LEVELS, "run": NEGATIVE_RUN,
     "why": "prefs_avgjg_Rnonrel: R = 2 ranks read from a lowest class (-1) of one; the "
            "second lies past trec_eval's buffer"},
    {"name": "all_prefs_beyond_the_buffer", "argv": ["-q", "-R", "qrels_prefs", "-m",
                                                     "all_prefs"],
     "qrels": NEGATIVE_LEVELS, "run": NEGATIVE_RUN,
     "why": "every preference measure on the case above"},
    {"name": "rnonrel_next_groups", "argv": ["-q", "-R", "qrels_prefs", "-m", "all_prefs"],
     "qrels": NEXT_GROUPS, "run": NEXT_GROUPS_RUN,
     "why": "prefs_avgjg_Rnonrel reads past a short lowest class into the next groups' ranks"},
    {"name": "rnonrel_earlier_query", "argv": ["-q", "-R", "qrels_prefs", "-m", "all_prefs"],
     "qrels": EARLIER_QUERY, "run": EARLIER_QUERY_RUN,
     "why": "prefs_avgjg_Rnonrel reads what the query before left in trec_eval's buffer"},
    {"name": "rnonrel_ret_past_a_short_class", "argv": ["-q", "-R", "qrels_prefs", "-m",
                                                        "all_prefs"],
     "qrels": RETRIEVED_ONLY, "run": RETRIEVED_ONLY_RUN,
     "why": "prefs_avgjg_Rnonrel_ret reads past a short lowest class too"},
    {"name": "prefs_levels_below_0", "argv": ["-q", "-R", "prefs", "-m", "all_prefs"],
     "qrels": PREFS_FILE, "run": PREFS_RUN,
     "why": "-R prefs: levels below 0 in equivalence classes, beside a preference array"},
    {"name": "complete_without_a_shared_query", "argv": ["-c"],
     "qrels": NO_SHARED, "run": NO_SHARED_RUN,
     "why": "-c and no query of the run in the qrels: 10.0 evaluates the qrels' queries on "
            "its placeholder, 9.0.8 finds nothing to evaluate"},
    {"name": "complete_without_a_shared_query_per_query", "argv": ["-c", "-q", "-m",
                                                                   "all_trec"],
     "qrels": NO_SHARED, "run": NO_SHARED_RUN, "why": "the same, every query printed"},
    {"name": "inf_below_0", "argv": ["-q", "-l", "-1", "-m", "all_trec"],
     "qrels": BELOW_0, "run": BELOW_0_RUN,
     "why": "-l -1: map and binG divide by num_rel = 0 (inf), gm_map's mean follows"},
    {"name": "inf_below_minus_1", "argv": ["-q", "-l", "-2", "-m", "map", "-m", "binG",
                                           "-m", "gm_map"],
     "qrels": BELOW_0, "run": BELOW_0_RUN, "why": "the same under -l -2"},
    {"name": "inf_z_scores", "argv": ["-q", "-l", "-1", "-Z", "zscores", "-m", "map", "-m",
                                      "binG", "-m", "gm_map"],
     "qrels": BELOW_0, "run": BELOW_0_RUN, "zscores": BELOW_0_ZSCORES,
     "why": "the z-score of inf (-Z)"},
    {"name": "inf_judgement_groups", "argv": ["-q", "-l", "-1", "-R", "qrels_jg", "-m",
                                              "qrels_jg"],
     "qrels": BELOW_0_JG, "run": BELOW_0_RUN,
     "why": "map_avgjg: a group judged only below 0 gives inf"},
]
