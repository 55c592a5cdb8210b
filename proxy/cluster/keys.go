package cluster

import "strconv"

// keyspace names every key and the channel of one gateway cluster.
type keyspace struct {
	prefix    string
	channel   string // events: cooldowns and sticky bindings
	cooldowns string // hash: deployment id → "until|reason"
	sticky    string // hash: public name → "until|deployment id|manual"
	// epoch is set once by the first replica to find it missing: a new one
	// says that Redis lost what it held (a restart without persistence).
	epoch string
}

func newKeyspace(namespace string) keyspace {
	p := "gateway:" + namespace + ":"
	return keyspace{prefix: p, channel: p + "events", cooldowns: p + "cooldowns", sticky: p + "sticky", epoch: p + "epoch"}
}

// Holder is what a budget or a rate limit belongs to: a key, a user or a
// team, by the kinds of models.SpendKey and its siblings.
type Holder struct {
	Kind string
	ID   int64
}

func (k keyspace) holder(what string, h Holder) string {
	return k.prefix + what + ":" + h.Kind + ":" + strconv.FormatInt(h.ID, 10)
}

// window is a hash of the last minute's requests ("r<unix second>") and
// tokens ("t<unix second>"), with their totals (see admitScript). The hash
// before it, "window", had no totals, and a replica of an earlier version
// could not read one that has: during a rolling upgrade each version
// counts in its own.
func (k keyspace) window(h Holder) string { return k.holder("win", h) }

// spent is the holder's spend in nanodollars in the budget period that ends
// at periodEnd (unix seconds, 0 without a period): a new period is a new key.
func (k keyspace) spent(h Holder, periodEnd int64) string {
	return k.holder("spent", h) + ":" + strconv.FormatInt(periodEnd, 10)
}

// held is a sorted set of reservations ("request id:nanodollars" scored by
// when they lapse), heldSum their total.
func (k keyspace) held(h Holder) string    { return k.holder("held", h) }
func (k keyspace) heldSum(h Holder) string { return k.holder("heldsum", h) }

// stats is a hash of one deployment's counters, latencies a list of its
// recent latencies in microseconds.
func (k keyspace) stats(id int64) string { return k.prefix + "stats:" + strconv.FormatInt(id, 10) }
func (k keyspace) latencies(id int64) string {
	return k.prefix + "latency:" + strconv.FormatInt(id, 10)
}
