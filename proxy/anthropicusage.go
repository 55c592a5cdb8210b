package proxy

import (
	"bytes"
	"encoding/json"
	"strconv"
	"unicode/utf8"

	"gateway/proxy/jsonscan"
)

// An Anthropic stream passed through carries its usage in two events:
// message_start's message.usage and message_delta's usage. Reading them with
// encoding/json cost 4.7–4.9 µs and 21 allocations a stream (reflection, a
// pointer per count; BenchmarkEventCounts); eventCounts reads the shapes
// upstreams send by hand (1.8–1.9 µs, none) and leaves anything unusual to
// encoding/json, whose answer is the rule (FuzzEventCounts holds the two to
// the same answer).

// eventCounts is the usage of a message_start (inMessage: under "message")
// or message_delta event's data, and whether encoding/json would read the
// event at all (when it would not, nothing is to be merged).
func eventCounts(data []byte, inMessage bool) (anthropicCounts, bool) {
	if c, ok, decided := fastEventCounts(data, inMessage); decided {
		return c, ok
	}
	return jsonEventCounts(data, inMessage)
}

// jsonEventCounts is eventCounts with encoding/json.
func jsonEventCounts(data []byte, inMessage bool) (anthropicCounts, bool) {
	if inMessage {
		var v struct {
			Message struct {
				Usage countsJSON `json:"usage"`
			} `json:"message"`
		}
		err := json.Unmarshal(data, &v)
		return v.Message.Usage.counts(), err == nil
	}
	var v struct {
		Usage countsJSON `json:"usage"`
	}
	err := json.Unmarshal(data, &v)
	return v.Usage.counts(), err == nil
}

// countsJSON is Anthropic's usage object as encoding/json reads it: absent
// or null counts stay nil.
type countsJSON struct {
	Input       *int64 `json:"input_tokens"`
	CacheRead   *int64 `json:"cache_read_input_tokens"`
	CacheCreate *int64 `json:"cache_creation_input_tokens"`
	Output      *int64 `json:"output_tokens"`
	Creation    *struct {
		Hour *int64 `json:"ephemeral_1h_input_tokens"`
	} `json:"cache_creation"`
}

func (j countsJSON) counts() anthropicCounts {
	var c anthropicCounts
	var hour *int64
	if j.Creation != nil {
		hour = j.Creation.Hour
	}
	for i, p := range [...]*int64{countInput: j.Input, countCacheRead: j.CacheRead, countCacheCreate: j.CacheCreate,
		countOutput: j.Output, countCache1h: hour} {
		if p != nil {
			c.n[i], c.set[i] = *p, true
		}
	}
	return c
}

// fastEventCounts reads the common shapes; decided is false for anything
// whose reading by encoding/json it does not mirror exactly: invalid JSON
// (jsonscan.Valid and encoding/json differ at the edges), keys with escapes or in
// another case (encoding/json matches fields without regard to case), a
// field given twice, a value of an unexpected type, a count that is not an
// int64.
func fastEventCounts(data []byte, inMessage bool) (c anthropicCounts, ok, decided bool) {
	if !jsonscan.Valid(data) {
		return c, false, false
	}
	i := jsonscan.SkipSpace(data, 0)
	if data[i] != '{' {
		return c, false, false
	}
	if inMessage {
		v, found, fine := uniqueField(data, i, "message")
		if !fine || !found || data[v.Start] == 'n' {
			return c, fine, fine // absent or null: no counts
		}
		if data[v.Start] != '{' {
			return c, false, false
		}
		i = v.Start
	}
	v, found, fine := uniqueField(data, i, "usage")
	if !fine || !found || data[v.Start] == 'n' {
		return c, fine, fine
	}
	if data[v.Start] != '{' {
		return c, false, false
	}
	names := [...]string{countInput: "input_tokens", countCacheRead: "cache_read_input_tokens",
		countCacheCreate: "cache_creation_input_tokens", countOutput: "output_tokens"}
	if !readCounts(data, v.Start, names[:], &c) {
		return c, false, false
	}
	v, found, fine = uniqueField(data, v.Start, "cache_creation")
	switch {
	case !fine:
		return c, false, false
	case found && data[v.Start] == '{':
		if !readCounts(data, v.Start, []string{countCache1h: "ephemeral_1h_input_tokens"}, &c) {
			return c, false, false
		}
	case found && data[v.Start] != 'n':
		return c, false, false // not an object: encoding/json refuses it
	}
	return c, true, true
}

// readCounts reads the object at data[open] into c: names[f] is the key
// of count f ("" for a count not in this object). false: encoding/json
// might read it otherwise (see fastEventCounts).
func readCounts(data []byte, open int, names []string, c *anthropicCounts) bool {
	var seen [numCounts]bool
	s := jsonscan.NewObject(data, open)
	for key, val, more := s.Next(); more; key, val, more = s.Next() {
		for f, name := range names {
			if name == "" || !sameKey(key, name) {
				continue
			}
			if seen[f] || string(key) != name {
				return false
			}
			seen[f] = true
			raw := data[val.Start:val.End]
			if raw[0] == 'n' {
				break // null: no count
			}
			n, err := strconv.ParseInt(string(raw), 10, 64)
			if err != nil {
				return false
			}
			c.n[f], c.set[f] = n, true
		}
	}
	return true
}

// uniqueField finds the field name of the object at data[open]: fine is
// false when encoding/json might read it otherwise than here (see
// fastEventCounts).
func uniqueField(data []byte, open int, name string) (v jsonscan.Span, found, fine bool) {
	s := jsonscan.NewObject(data, open)
	for key, val, more := s.Next(); more; key, val, more = s.Next() {
		if !sameKey(key, name) {
			continue
		}
		if found || string(key) != name {
			return v, found, false
		}
		v, found = val, true
	}
	return v, found, true
}

// sameKey: encoding/json could take the raw key for name: equal but for
// ASCII case, or with an escape or a non-ASCII byte (which might decode or
// fold to it: "\u0075sage", the Kelvin sign for k), taken as a maybe.
func sameKey(raw []byte, name string) bool {
	for _, c := range raw {
		if c == '\\' || c >= utf8.RuneSelf {
			return true
		}
	}
	return len(raw) == len(name) && bytes.EqualFold(raw, []byte(name))
}
