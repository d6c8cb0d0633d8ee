package audit

// JoinPlan joins a score table to the canary plan it was scored for: ids
// and member are the plan's canary ids and inclusion bits, in plan
// order. Every canary of the plan must be scored exactly once, and no
// other; a table with a member column must agree with the plan's bit on
// every row. Anything else is a tampered or mixed-up run (a table scored
// for another plan, a canary left out, bits copied wrong) and an error
// naming the first canary at fault. A plan's bits were drawn once, for
// one training run: a table with several runs is refused, since
// reusing the bits in a second run makes each canary count in two runs
// and the one-run theorem no longer applies. The result has the plan's
// bits and is in plan order, so the estimates do not depend on how the
// user sorted the table.
func JoinPlan(t *ScoreTable, ids []string, member []bool) (*ScoreTable, error) {
	if len(ids) != len(member) {
		return nil, invalidf("canary plan: %d ids but %d membership bits", len(ids), len(member))
	}
	if t.Canary == nil {
		return nil, invalidf("score table: joining a canary plan needs a canary column")
	}
	if t.Step != nil {
		return nil, invalidf("score table: a canary plan is a one-run audit; per-step samples (a step column) do not join to it")
	}
	if t.Run != nil {
		if runs, _ := groups(t.Run); len(runs) > 1 {
			return nil, invalidf("score table: %d runs, but a canary plan is for one training run (its inclusion bits must not be reused)", len(runs))
		}
	}
	at := make(map[string]int, len(ids))
	for j, id := range ids {
		if _, dup := at[id]; dup {
			return nil, invalidf("canary plan: canary id %s appears twice", quoteID(id))
		}
		at[id] = j
	}
	row := make([]int, len(ids))
	for j := range row {
		row[j] = -1
	}
	for i, c := range t.Canary {
		j, ok := at[c]
		if !ok {
			return nil, invalidf("score table: %s scores canary %s, which is not in the plan (%d canaries, ids %s … %s): a table scored for another plan?",
				t.at(i), quoteID(c), len(ids), quoteID(ids[0]), quoteID(ids[len(ids)-1]))
		}
		if row[j] >= 0 {
			return nil, invalidf("score table: duplicate canary id %s (%s and %s); each canary is scored once", quoteID(c), t.at(row[j]), t.at(i))
		}
		if t.Member != nil && t.Member[i] != member[j] {
			return nil, invalidf("score table: %s says canary %s is %s, the plan says it is %s: the table's membership bits disagree with the plan",
				t.at(i), quoteID(c), memberWord(t.Member[i]), memberWord(member[j]))
		}
		row[j] = i
	}
	missing := 0
	first := ""
	for j, i := range row {
		if i < 0 {
			if missing == 0 {
				first = ids[j]
			}
			missing++
		}
	}
	if missing > 0 {
		return nil, invalidf("score table: %d of the plan's %d canaries are not scored (the first: %s); score every canary, included or not", missing, len(ids), quoteID(first))
	}
	out := t.rows(row)
	out.Member = append([]bool(nil), member...)
	out.Run = nil
	return out, nil
}
