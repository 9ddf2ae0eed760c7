"""The reading of one pair of answers: alignment, facts, polarity, roles, edits, coverage.

:class:`Reading` holds two answers' units and their similarity matrix and finds each
difference as a :class:`~agentsnap.diff.meaning.findings.Finding` (steps 2–5 of
:mod:`agentsnap.diff.meaning.verdict`, which builds the units, batches the model calls and
asks about the one-word edits this leaves in :attr:`Reading.replaced`).
"""

from __future__ import annotations

import difflib
import math

from . import facts as F
from . import outcomes as O
from . import vocabulary as V
from .bindings import bound_changes, bound_kept
from .clues import (
    _block_swap,
    _closeness,
    _closeness_without,
    _concept,
    _contentful,
    _coverage,
    _enumeration,
    _flipped_clause,
    _listed,
    _negated_in_part,
    _polar,
    _related,
    _surface,
    _unrelated,
    _weight,
    changed_conclusion,
    concludes,
    courteous,
    flipped_concepts,
    flipped_in_clause,
    named_step,
)
from .compounds import inside
from .findings import KIND_LABEL, Finding, Verdict, pair_message
from .layout import (
    by_initials,
    denied_value,
    joined_step,
    labelled_values,
    other_than_only,
    topic_untold,
    value_said,
)
from .members import contrast_kept, negated_member_moved
from .merges import links, merged_pairs
from .negations import (
    free_negations,
    need_denied,
    omissions_read,
    order_both_ways,
    order_poles,
    prefix_negations,
    unordered,
)
from .phrasing import clock_words
from .roles import active, bound_swap, clause_swap, duty_moved, order_kept, voice_swap
from .slots import replaced_pairs, restated_pairs
from .stated import accounted
from .units import _COURTESY, _NARRATION, _PASSIVE, Unit, _flat, edges

__all__ = ["ALIGN", "COVERED", "Reading"]

#: least similarity (max of MiniLM cosine and trigram cosine) for two units to align
ALIGN = 0.5
#: least similarity of a new line to a golden line another one matched, for it to be read as
#: a line of a templated answer put in the place of another claim
LIKE = 0.75
#: a unit whose content words the other text covers at least this much is not dropped/added
COVERED = 0.6


class Reading:
    """The reading of one pair of answers (:mod:`agentsnap.diff.meaning.verdict`, steps 2–5):
    ``run`` finds the differences, ``verdict`` scores them; ``replaced`` are the one-word edits
    whose synonymy the caller asks the model about."""

    def __init__(
        self, golden: str, new: str, g: list[Unit], n: list[Unit], sims: list[list[float]]
    ) -> None:
        self.golden, self.new, self.g, self.n, self.sims = golden, new, g, n, sims
        self.findings: list[Finding] = []
        self.replaced: list[tuple[str, str]] = []
        self.replaced_units: list[tuple[str, str]] = []
        self.g_best = [max(row) if row else 0.0 for row in sims] if n else [0.0] * len(g)
        self.n_best = [max(sims[i][j] for i in range(len(g))) if g else 0.0 for j in range(len(n))]
        self.g_arg = [row.index(max(row)) if row else -1 for row in sims] if n else [-1] * len(g)
        self.n_arg = [_argmax([sims[i][j] for i in range(len(g))]) for j in range(len(n))]
        # counterparts one to one (a merged or split sentence links to the one that says it)
        self.g_link, self.n_link, self.matched = links(sims, g, n, ALIGN)

    def add(self, kind: str, severity: str, g: str, n: str, message: str) -> None:
        finding = Finding(kind, severity, g, n, message)
        if finding not in self.findings:  # two readings of one pair may find the same thing
            self.findings.append(finding)

    def flag(self, kind: str, severity: str, label: str, g: str, n: str) -> None:
        """A finding whose message is ``label`` quoting both sides."""
        self.add(kind, severity, g, n, pair_message(label, g, n))

    # ------------------------------------------------------------------ steps
    def run(self) -> None:
        if _flat(self.golden) == _flat(self.new):
            self.add("format", "harmless", "", "", "only formatting, case or punctuation differ")
            return
        g_empty = self.golden.strip().casefold() in ("", "null")
        n_empty = self.new.strip().casefold() in ("", "null")
        if g_empty != n_empty:
            side = "golden" if g_empty else "new"
            self.flag("empty", "harmful", f"the {side} answer is empty", self.golden, self.new)
            return
        self._facts()
        self._values()
        groups = self._groups()
        g_real = [u for u in self.g if not u.filler and u.text.casefold() != "null"]
        n_real = [u for u in self.n if not u.filler and u.text.casefold() != "null"]
        shared = any(
            F.facts_match(a, b) for u in self.g for a in u.facts for v in self.n for b in v.facts
        )
        if (
            not groups
            and (g_real or n_real)
            and not shared
            and not (self._covered(self.g, self.n) or self._covered(self.n, self.g))
        ):
            g = " ".join(u.text for u in self.g)
            n = " ".join(u.text for u in self.n)
            self.flag(
                "different", "harmful", "a different answer: no sentence has a counterpart", g, n
            )
            return
        for g_ids, n_ids in groups:
            if [self.g[i].text for i in g_ids] == [self.n[j].text for j in n_ids]:
                continue  # unchanged sentences
            self._polarity(g_ids, n_ids)
            if len(g_ids) == 1 and len(n_ids) == 1:
                self._edits(g_ids[0], n_ids[0])
            else:  # a sentence split or merged: who does what, across its parts
                self._duties(g_ids, n_ids)
        self._conclusion()
        self._coverage()

    def _facts(self) -> None:
        g_words, n_words = set(V.tokens(self.golden)), set(V.tokens(self.new))
        missing: dict[str, list[tuple[int, F.Fact]]] = {}
        extra: dict[str, list[tuple[int, F.Fact]]] = {}
        g_all = [(i, f) for i, u in enumerate(self.g) for f in u.facts]
        n_all = [(j, f) for j, u in enumerate(self.n) for f in u.facts]
        # strict first (units must agree), then a unit missing on one side matches a leftover of the other
        g_left = [
            (i, f)
            for i, f in g_all
            if not any(F.facts_match(f, o, lenient=False) for _, o in n_all)
        ]
        n_left = [
            (j, f)
            for j, f in n_all
            if not any(F.facts_match(f, o, lenient=False) for _, o in g_all)
        ]

        for i, fact in g_left:
            if accounted(fact, self.g, i, self.n, n_all, self.golden, self.new, n_words):
                continue
            if topic_untold(fact, self.g, i, self.n):  # "Bus 42 runs every …" / a table of times
                label = f"topic left to the table's question ({fact.surface})"
                self.flag("rewording", "harmless", label, self.g[i].text, "")
            else:
                missing.setdefault(fact.kind, []).append((i, fact))
        for j, fact in n_left:
            if not accounted(fact, self.n, j, self.g, g_all, self.new, self.golden, g_words):
                extra.setdefault(fact.kind, []).append((j, fact))
        for kind in list(dict.fromkeys([*missing, *extra])):
            gone, came = missing.get(kind, []), extra.get(kind, [])
            if kind == "year" and not (gone and came):
                side = "added" if came else "dropped"
                form = (came or gone)[0][1].surface
                said = f"year {form} {side} next to the same date (judged harmless)"
                self.add("year", "harmless", "", "", said)
                continue
            label = KIND_LABEL.get(kind, kind)
            g_forms = ", ".join(dict.fromkeys(f.surface for _, f in gone)) or "(none)"
            n_forms = ", ".join(dict.fromkeys(f.surface for _, f in came)) or "(none)"
            g_sent = self.g[gone[0][0]].text if gone else ""
            if came:
                n_sent = self.n[came[0][0]].text
            elif gone and self.g_arg[gone[0][0]] >= 0 and self.g_best[gone[0][0]] >= ALIGN:
                n_sent = self.n[self.g_arg[gone[0][0]]].text
            else:
                n_sent = ""
            if (
                not g_sent
                and came
                and self.n_arg[came[0][0]] >= 0
                and self.n_best[came[0][0]] >= ALIGN
            ):
                g_sent = self.g[self.n_arg[came[0][0]]].text
            self.flag(kind, "harmful", f"{label} ({g_forms} → {n_forms})", g_sent, n_sent)

    def _values(self) -> None:
        """The value under each label both answers give once ("Price: 40 $" / "- Price: 8 $", a
        table row's first cell): values that trade places between labels keep every fact of the
        answer, so they are compared label by label."""
        g_values, n_values = labelled_values(self.g), labelled_values(self.n)
        for key in g_values.keys() & n_values.keys():
            (g_text, g_facts), (n_text, n_facts) = g_values[key], n_values[key]
            if (
                g_facts
                and n_facts
                and not any(F.facts_match(a, b) for a in g_facts for b in n_facts)
            ):
                was = ", ".join(f.surface for f in g_facts)
                now = ", ".join(f.surface for f in n_facts)
                label = f"value under a label changed ({was} → {now})"
                self.flag(g_facts[0].kind, "harmful", label, g_text, n_text)
        for kind, label, g_text, n_text in bound_changes(self.g, self.n, self.golden, self.new):
            self.flag(kind, "harmful", label, g_text, n_text)

    def _groups(self) -> list[tuple[list[int], list[int]]]:
        parent = list(range(len(self.g) + len(self.n)))

        def find(x: int) -> int:
            while parent[x] != x:
                parent[x] = parent[parent[x]]
                x = parent[x]
            return x

        def union(a: int, b: int) -> None:
            parent[find(a)] = find(b)

        offset = len(self.g)
        for i, j in enumerate(self.g_link):
            if j is not None:
                union(i, offset + j)
        for j, k in enumerate(self.n_link):
            if k is not None:
                union(offset + j, k)
        comps: dict[int, tuple[list[int], list[int]]] = {}
        for i in range(len(self.g)):
            comps.setdefault(find(i), ([], []))[0].append(i)
        for j in range(len(self.n)):
            comps.setdefault(find(offset + j), ([], []))[1].append(j)
        return [c for c in comps.values() if c[0] and c[1]]

    @staticmethod
    def _covered(units: list[Unit], other: list[Unit]) -> bool:
        words = {w for u in other for w in u.words}
        mine = [w for u in units for w in u.words]
        return bool(mine) and _coverage(mine, words) >= COVERED

    def _polarity(self, g_ids: list[int], n_ids: list[int]) -> None:
        # each golden sentence against its best counterpart in the group, then the group as a whole
        free, left = list(n_ids), []
        for i in g_ids:  # a sentence kept verbatim is its own counterpart
            same = next((j for j in free if self.n[j].text == self.g[i].text), None)
            if same is None:
                left.append(i)
            else:
                free.remove(same)
        pairs = [([i], [max(free, key=lambda j: self.sims[i][j])]) for i in left if free]
        for g_part, n_part in [*pairs, (g_ids, n_ids)]:
            g = " ".join(self.g[i].text for i in g_part)
            n = " ".join(self.n[j].text for j in n_part)
            if g == n:
                continue
            g_markers = order_poles([m for i in g_part for m in self.g[i].markers], n)
            n_markers = order_poles([m for j in n_part for m in self.n[j].markers], g)
            if order_both_ways(g, n):  # "A before B" = "A first; after that B": no pole flipped
                g_markers, n_markers = unordered(g_markers), unordered(n_markers)
            g_markers += prefix_negations(g, n) + free_negations(g, n)  # "unchanged" = "nothing
            n_markers += prefix_negations(n, g) + free_negations(
                n, g
            )  # changes", "free" = "no charge"
            shown = (g, n)
            # a word of omission as the negation the other says ("skips X" = "does not halt at X")
            g, n, g_markers, n_markers = omissions_read(g, n, g_markers, n_markers)
            g, n, g_markers, n_markers = O.outcome_negations_read(g, n, g_markers, n_markers)
            # a concept stated with opposite polarity, backed by the parity of the negations and
            # negative antonyms (a paraphrase moves them around: "no open issues" = "all issues
            # are closed"; "did not pass" = "failed"); a negating prefix (reversible →
            # irreversible) is a negation of its own
            flipped = flipped_concepts(g, n)
            prefixed = any(c.startswith("#") and not c.startswith("#pole") for c in flipped)
            # two flips in one sentence cancel in parity ("you qualify, and … can go ahead" →
            # "you do not qualify, and … cannot go ahead"): two concepts flipped, two negations more
            parity = len(g_markers) % 2 != len(n_markers) % 2 or (
                len(flipped) >= 2 and abs(len(g_markers) - len(n_markers)) >= 2
            )
            # read in sentences that still say much the same (their content words, or characters
            # for CJK); a rewording moves negations into other clauses ("not accepted" → "we
            # accept only C")
            close = _closeness(g, n)
            # a table row's cells are no clauses: the row says its cells of its first one
            rows = [self.g[i].text for i in g_part if self.g[i].row]
            rows += [self.n[j].text for j in n_part if self.n[j].row]
            if len(rows) == 1 and other_than_only(
                rows[0], shown[1] if rows[0] == shown[0] else shown[0]
            ):
                continue  # "only the SUV includes…" denies it of the row "Compact"
            outcome = O.changed_outcome(*shown)  # "finished without errors" → "failed again"
            if outcome is not None:
                self.flag("conclusion", "harmful", 'outcome: "{}" → "{}"'.format(*outcome), *shown)
                return
            if not ((flipped and (parity or prefixed) and close >= 0.5) or len(g_part) > 1):
                # clause by clause: two flips in two clauses cancel in the sentence's parity
                # ("still contains it; upgrading will not fix it" → "no longer contains it;
                # upgrading will fix it")
                clause = (
                    (None if rows else _flipped_clause(g, n))
                    or _negated_in_part(g, n)
                    or (
                        flipped_in_clause(g, n, flipped)
                        if (parity or prefixed)
                        and not any(self.g[i].heading for i in g_part)
                        and not any(self.n[j].heading for j in n_part)  # labels, not claims
                        else None
                    )
                )
                if clause is not None:
                    self.flag("polarity", "harmful", clause, *shown)
                    return
            moved = negated_member_moved(g, n, flipped) if flipped and not parity else None
            if moved is not None:
                label = f"negation moved to another member (not {moved[0]} → not {moved[1]})"
                self.flag("swap", "harmful", label, *shown)
                return
            if flipped and (parity or prefixed) and close >= 0.5:
                words = f"{', '.join(g_markers) or 'none'} → {', '.join(n_markers) or 'none'}"
                if not (g_markers or n_markers):
                    words = ", ".join(c.lstrip("#") for c in flipped)
                label = f"polarity flipped (negation/antonym: {words})"
                self.flag("polarity", "harmful", label, *shown)
                return

    def _edits(self, i: int, j: int) -> None:
        g_unit, n_unit = self.g[i], self.n[j]
        same_voice = len(_PASSIVE.findall(g_unit.text)) == len(_PASSIVE.findall(n_unit.text))
        # a swap of two names, or of two blocks of content words around a shared middle: A … B → B … A
        g_names = [str(f.key[0]) for f in g_unit.facts if f.kind == "name"]
        n_names = [str(f.key[0]) for f in n_unit.facts if f.kind == "name"]
        # two names in the other order are a swap only where the rest of the sentence stayed put
        # ("Alice pays Bob" → "Bob pays Alice"); a rewording reorders names freely
        name_swap = _block_swap(g_names, n_names, need_middle=False)
        if name_swap and _closeness_without(g_unit.text, n_unit.text, name_swap) < 0.75:
            name_swap = None
        swap = (
            name_swap
            or _block_swap(g_unit.words, n_unit.words)
            or _block_swap(V.tokens(g_unit.text), V.tokens(n_unit.text))  # their X → your X
        )
        # in the other voice, roles are read in the active order ("B is paid by A" = "A pays B")
        if bool(active(g_unit.text)[1]) != bool(active(n_unit.text)[1]):
            # one of them in the passive: roles read in the active order ("B is paid by A" =
            # "A pays B", "Y is included in X" = "X includes Y")
            swap = voice_swap(g_unit.text, n_unit.text)
        elif not same_voice:
            swap = None
        named = None
        if swap is None and (same_voice or not (active(g_unit.text)[1] or active(n_unit.text)[1])):
            # per clause ("A owes B; B sends the invoice" → "B owes A; A sends the invoice"), or
            # what two names' clauses say traded ("A is the primary and B replicates" → …)
            named = clause_swap(g_unit.text, n_unit.text, g_unit.facts, n_unit.facts) or bound_swap(
                g_unit.text, n_unit.text, g_unit.facts, n_unit.facts
            )
        swap = swap or named
        if (
            swap
            # "$2,300 payment" = "payment of $2,300"; a name may hold digits ("db-eu-1")
            and (named or not any(c.isdigit() for c in swap[0] + swap[1]))
            and not _enumeration(g_unit.text, swap[0], swap[1])
            and not (_listed(g_unit.text, *swap) and _listed(n_unit.text, *swap))
            and not contrast_kept(g_unit.text, n_unit.text, *swap)  # "not A but B" = "B, not A"
            and not bound_kept(g_unit, n_unit, *swap)  # "A 3 %, B 5 %" = "B 5 %, A 3 %"
            and not order_kept(g_unit.text, n_unit.text, *swap)  # "X is Y" = "Y is X"
            and not O.outcomes_kept(g_unit.text, n_unit.text)  # "A failed, B did" = "B did, A …"
        ):
            a, b = _surface(g_unit.text, swap[0]), _surface(g_unit.text, swap[1])
            self.flag("swap", "harmful", f"roles swapped ({a} ↔ {b})", g_unit.text, n_unit.text)
            return
        g_tok, n_tok = V.tokens(clock_words(g_unit.text)), V.tokens(clock_words(n_unit.text))
        fact_tokens = {t for f in g_unit.facts + n_unit.facts for t in V.tokens(f.surface)}
        matcher = difflib.SequenceMatcher(None, g_tok, n_tok, autojunk=False)
        same = sum(block.size for block in matcher.get_matching_blocks())
        # the one sentence an otherwise verbatim answer changed is read closely: its edit is the point
        isolated = len(self.g) >= 2 and all(
            any(u.text == v.text for v in self.n) for u in self.g if u is not g_unit
        )
        near = same >= 3 and same >= 0.7 * max(len(g_tok), len(n_tok))
        kept = same >= 3 and same >= 0.8 * len(g_tok)
        # a short sentence, the only one changed, is read for a member joined to its list
        short = isolated and same >= 2 and same >= 0.6 * len(g_tok)
        if not (near or kept or short):
            return
        self._facts_in(g_unit, n_unit)
        replaced: list[tuple[str, str]] = []
        inserted: list[str] = []
        removed: list[str] = []
        joined = False
        g_words = set(g_unit.words) | {w for u in self.g for w in u.words}
        n_words = set(n_unit.words) | {w for u in self.n for w in u.words}
        polite = {t for m in _COURTESY.finditer(n_unit.text) for t in V.tokens(m.group(0))}
        for tag, a0, a1, b0, b1 in matcher.get_opcodes():
            left = [t for t in g_tok[a0:a1] if _contentful(t) and t not in fact_tokens]
            right = [t for t in n_tok[b0:b1] if _contentful(t) and t not in fact_tokens]
            if tag == "replace" and left and right:
                left, right = _unrelated(left, right)
            if tag == "replace" and left and right:
                lw, rw = " ".join(left), " ".join(right)
                if not (_related(lw, rw) or _polar(lw) or _polar(rw)):
                    replaced.append((lw, rw))
            if tag in ("insert", "replace"):
                inserted += [t for t in right if V._stem(t) not in g_words and t not in polite]
                # one more member joined to a list ("breakfast is included" → "breakfast and
                # parking are included"): a claim however short, in the one changed sentence
                joined = joined or (
                    not left  # nothing of the golden's replaced ("is" → "and parking are")
                    and isolated
                    and 1 <= len(right) <= 2
                    and b0 > 0
                    and n_tok[b0] in _JOIN  # joined right after a word the golden has
                    and n_tok[b0 - 1] in g_tok
                    and all(V._stem(t) not in g_words for t in right)
                )
            if tag in ("delete", "replace"):
                removed += [t for t in left if V._stem(t) not in n_words]
        width = 3 if isolated else 2
        if (
            near
            and len(replaced) == 1
            and len(replaced[0][0].split()) <= width
            and len(replaced[0][1].split()) <= width
        ):
            if concludes(g_unit.text) and concludes(n_unit.text):
                # the word a conclusion turns on is no synonym question ("recommend a
                # replacement" → "recommend a repair" are near in a model's space)
                a, b = replaced[0]
                label = f"conclusion changed ({a} → {b})"
                self.flag("conclusion", "harmful", label, g_unit.text, n_unit.text)
            elif O.same_outcome(*replaced[0]):  # "zugestellt" → "geliefert worden"
                label = "reworded ({} → {}, one outcome)".format(*replaced[0])
                self.flag("rewording", "harmless", label, g_unit.text, n_unit.text)
            else:
                self.replaced.append(replaced[0])
                self.replaced_units.append((g_unit.text, n_unit.text))
        elif not (near or kept or joined):
            return
        elif near and len(replaced) == 1 and not (g_unit.labelled or n_unit.labelled):
            # a sentence kept but for one stretch of several words, none related to the other's: a
            # claim replaced ("caused by a misconfigured autoscaling policy" → "… a forgotten load test")
            a, b = replaced[0]
            self.flag("claim", "harmful", f"claim changed ({a} → {b})", g_unit.text, n_unit.text)
        elif (_weight(inserted) >= 3 or joined) and not replaced and not g_unit.labelled:
            self.flag(
                "added", "soft", f"claim added ({' '.join(inserted)})", g_unit.text, n_unit.text
            )
        elif isolated and _weight(removed) >= 3 and not replaced and not n_unit.labelled:
            # the one changed sentence lost a part ("…, attach any new schedules, and mail it")
            self.flag(
                "dropped", "soft", f"part dropped ({' '.join(removed)})", g_unit.text, n_unit.text
            )

    def _conclusion(self) -> None:
        """The answers' last claims, when both conclude ("Recommendation: …"), must conclude alike."""
        g_last = [i for i, u in enumerate(self.g) if not u.filler and not u.addressed][-1:]
        n_last = [j for j, u in enumerate(self.n) if not u.filler and not u.addressed][-1:]
        if not (g_last and n_last) or any(f.severity == "harmful" for f in self.findings):
            return
        g, n = self.g[g_last[0]].text, self.n[n_last[0]].text
        changed = changed_conclusion(g, n) if g != n else None
        if changed:
            label = f"conclusion changed ({changed[0]} → {changed[1]})"
            self.flag("conclusion", "harmful", label, g, n)

    def _facts_in(self, g_unit: Unit, n_unit: Unit) -> None:
        """A fact of a nearly unchanged sentence replaced by another, even one the answer states
        elsewhere ("the option that fits is Thursday at 4:15 pm" → "…Tuesday at 8:40 am")."""
        gone = [f for f in g_unit.facts if not any(F.facts_match(f, o) for o in n_unit.facts)]
        came = [f for f in n_unit.facts if not any(F.facts_match(f, o) for o in g_unit.facts)]
        gone = [f for f in gone if not by_initials(f, g_unit.text, n_unit.text)]  # "DPO"
        told = any(f.golden == g_unit.text and f.severity == "harmful" for f in self.findings)
        if gone and came and not told:
            what = f"{', '.join(f.surface for f in gone)} → {', '.join(f.surface for f in came)}"
            label = f"facts differ in this sentence ({what})"
            self.flag(gone[0].kind, "harmful", label, g_unit.text, n_unit.text)

    def _restated(self) -> tuple[dict[int, int], dict[int, int]]:
        """Golden and new units that restate each other in the same place (:mod:`.slots`), each
        pair read for a flipped polarity and a changed conclusion like an aligned one."""
        g_partner, n_partner = self.g_link, self.n_link
        g_done: dict[int, int] = {}
        n_done: dict[int, int] = {}
        for i, j in restated_pairs(g_partner, n_partner, self.g, self.n):
            before = len(self.findings)
            self._polarity([i], [j])
            g, n = self.g[i].text, self.n[j].text
            changed = changed_conclusion(g, n)
            if changed:
                label = f"conclusion changed ({changed[0]} → {changed[1]})"
                self.flag("conclusion", "harmful", label, g, n)
            elif len(self.findings) == before:
                self.flag("rewording", "harmless", "sentence restated", g, n)
            g_done[i] = j
            n_done[j] = i
        return g_done, n_done

    def _duties(self, g_ids: list[int], n_ids: list[int]) -> None:
        """What one party does said of the other across sentences split or merged (:mod:`.roles`)."""
        g = " ".join(self.g[i].text for i in g_ids)
        n = " ".join(self.n[j].text for j in n_ids)
        moved = duty_moved(g, n)
        if moved is not None:
            a, b = _surface(g, moved[0]), _surface(g, moved[1])
            self.flag("swap", "harmful", f"roles swapped ({a} → {b})", g, n)

    def _joined(self, g_ids: list[int], n_ids: list[int], label: str) -> None:
        """Sentences merged or split (:mod:`.merges`), read as one group for polarity and roles."""
        before = len(self.findings)
        self._polarity(g_ids, n_ids)
        self._duties(g_ids, n_ids)
        if len(self.findings) == before:
            g = " ".join(self.g[i].text for i in g_ids)
            n = " ".join(self.n[j].text for j in n_ids)
            self.flag("rewording", "harmless", label, g, n)

    @staticmethod
    def _nearest(unit: Unit, others: list[Unit], sims: list[float]) -> int:
        """The unit of ``others`` sharing most concepts (antonym poles as one) with ``unit``; of
        two sharing as many, the more similar (``sims``: ``unit`` against each of ``others``)."""
        mine = {_concept(w) for w in unit.words}
        return max(
            range(len(others)),
            key=lambda k: (len(mine & {_concept(w) for w in others[k].words}), sims[k]),
        )

    def _coverage(self) -> None:
        n_words = {w for u in self.n for w in u.words} | inside(self.g, self.new)
        g_words = {w for u in self.g for w in u.words} | inside(self.n, self.golden)
        matched_g: list[tuple[int, int]] = []
        g_restated, n_restated = self._restated()
        g_partner = [j if j is not None else g_restated.get(i) for i, j in enumerate(self.g_link)]
        n_partner = [i if i is not None else n_restated.get(j) for j, i in enumerate(self.n_link)]
        g_merged = merged_pairs(self.g, self.n, g_partner)
        n_split = merged_pairs(self.n, self.g, n_partner)
        # a sentence and another claim in its place, neither with a counterpart one to one
        # (the new one like a sentence another one already matches: a templated answer's line)
        g_replaced = {
            i: j
            for i, j in replaced_pairs(g_partner, n_partner, self.g, self.n)
            if self.n_best[j] >= LIKE
        }
        n_replacing: set[int] = set()
        g_edges, n_edges = edges(self.g), edges(self.n)
        for i, unit in enumerate(self.g):
            link = self.g_link[i]
            aligned = link is not None
            mutual = (i, link) in self.matched
            cover = _coverage(unit.words, n_words)
            denying = (
                need_denied(unit.words, [u.words for u in self.n], COVERED)
                if unit.markers and not aligned and i not in g_restated
                else None
            )
            if denying is not None:  # "no change is needed" / "Change: –": the change denied
                label = "a need denied as the thing denied"
                self.flag("rewording", "harmless", label, unit.text, self.n[denying].text)
                continue
            if unit.step and aligned and not mutual and cover < 0.8:
                # two golden steps share one new counterpart: the weaker one is missing
                aligned = False
            if aligned and link is not None:
                matched_g.append((i, link))
                continue
            if i in g_restated:
                continue
            joined = joined_step(self.g, i, self.n)  # a step said in a sentence of steps
            if courteous(unit, n_words, edge=i in g_edges):
                self.flag("courtesy", "harmless", unit.harmless("dropped"), unit.text, "")
            elif joined is not None:
                self._polarity([i], [joined])
            elif (
                unit.step and cover < 0.8 and not (cover >= 0.5 and named_step(self.g, i, self.new))
            ):
                self.flag("step", "harmful", "step missing", unit.text, "")
            elif unit.labelled and value_said(unit.text, self.n):
                self.flag("rewording", "harmless", "labelled value said in prose", unit.text, "")
            elif unit.labelled and denied_value(unit.text):  # "Term: none"
                near = self.n[self._nearest(unit, self.n, self.sims[i])].text if self.n else ""
                label = (
                    f"polarity flipped (negation/antonym: {', '.join(unit.markers)} → (nothing))"
                )
                self.flag("polarity", "harmful", label, unit.text, near)
            elif cover < COVERED and not unit.facts and i in g_merged:
                # said inside its neighbour's counterpart: the two read as one group
                k, j = g_merged[i]
                self._joined(sorted([i, k]), [j], "sentences merged")
            elif cover < COVERED and i in g_replaced and not unit.heading:
                j = g_replaced[i]
                n_replacing.add(j)
                severity = "harmful" if unit.markers or self.n[j].markers else "soft"
                label = "sentence replaced by another claim"
                self.flag("dropped", severity, label, unit.text, self.n[j].text)
            elif cover < COVERED and not unit.facts:
                severity = "harmful" if unit.markers else "soft"  # a dropped warning or negation
                self.flag("dropped", severity, "sentence dropped", unit.text, "")
            elif any(_polar(w) for w in V.tokens(unit.text)):
                # covered only through an antonym's other pole ("Approved" / "Rejected"): the
                # new sentence sharing most of its concepts is read for polarity
                self._polarity([i], [self._nearest(unit, self.n, self.sims[i])])
        for j, unit in enumerate(self.n):
            if j in n_restated or j in n_replacing:
                continue
            aligned = self.n_link[j] is not None
            mutual = (self.n_link[j], j) in self.matched
            novel = [
                w for w in dict.fromkeys(unit.words) if w not in g_words and w not in _NARRATION
            ]
            weight = _weight(novel)
            if aligned and (mutual or weight < 3 or _coverage(unit.words, g_words) >= 0.5):
                continue
            if courteous(unit, g_words, edge=j in n_edges):
                self.flag("courtesy", "harmless", unit.harmless("added"), "", unit.text)
            elif (joined := joined_step(self.n, j, self.g)) is not None:
                self._polarity([joined], [j])
            elif sum(not V.polarity(w)[1] for w in novel) <= 2 and any(
                u.labelled and value_said(u.text, [unit]) for u in self.g
            ):  # "El contrato no tiene permanencia." says "Permanencia: ninguna"
                self.flag("rewording", "harmless", "labelled value said in prose", "", unit.text)
            elif j in n_split and ((unit.step and weight >= 2) or (weight >= 3 and not unit.facts)):
                k, i = n_split[j]  # its golden sentence said in two
                self._joined([i], sorted([j, k]), "sentence split")
            elif unit.step and weight >= 2:
                self.flag("added", "soft", "step added", "", unit.text)
            elif weight >= 3 and not unit.facts:
                # a claim that negates or warns ("…must not be used") changes what the answer says
                severity = "harmful" if unit.markers else "soft"
                self.flag("added", severity, "claim added", "", unit.text)
            elif self.g and any(_polar(w) for w in V.tokens(unit.text)):
                # nothing new but a negation or an antonym ("Saturdays: not covered by the
                # permit" beside "Saturdays are allowed with this permit"): read for polarity
                # against the golden sentence sharing most of its concepts
                column = [row[j] for row in self.sims]
                self._polarity([self._nearest(unit, self.g, column)], [j])
        steps = [(i, j) for i, j in matched_g if self.g[i].step]
        order = [j for _, j in steps]
        sequenced = [(i, j) for i, j in steps if self.g[i].sequenced]
        if len(sequenced) >= 2 and [j for _, j in sequenced] != sorted(j for _, j in sequenced):
            # "First …, then …": the order is what the words say
            g = " ".join(self.g[i].text for i, _ in sequenced)
            n = " ".join(self.n[j].text for _, j in sorted(sequenced, key=lambda p: p[1]))
            self.flag("step", "harmful", "steps out of order", g, n)
        elif len(order) >= 2 and order != sorted(order):
            self.add(
                "reordered", "harmless", "", "", "list items or steps reordered (judged harmless)"
            )

    # ------------------------------------------------------------------ score
    def quality(self) -> float:
        values = self.g_best + self.n_best
        if not values:
            return 0.0
        mean = math.fsum(min(1.0, max(0.0, v)) for v in values) / len(values)
        return min(1.0, max(0.0, (mean - 0.5) / 0.5))

    def verdict(self) -> Verdict:
        if not self.findings:
            self.add(
                "rewording",
                "harmless",
                "",
                "",
                "reworded; every fact, step and sentence has a counterpart",
            )
        q = self.quality()
        kinds = {f.kind for f in self.findings}
        levels = {f.severity for f in self.findings}
        if "harmful" in levels:
            score = 0.40 + 0.20 * q
        elif "soft" in levels:
            score = 0.80 + 0.08 * q
        elif kinds == {"format"}:
            score = 0.99
        else:
            score = 0.93 + 0.06 * q
        return Verdict(round(score, 4), self.findings)


#: the words that join one more member to a list
_JOIN = frozenset(["and", "or", "und", "oder", "et", "ou", "y", "o", "sowie", "plus", "と", "や"])


def _argmax(values: list[float]) -> int:
    """Index of the largest value (the first on ties), -1 for an empty list."""
    return values.index(max(values)) if values else -1
