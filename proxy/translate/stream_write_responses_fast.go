package translate

import "strconv"

// Hand writing of the Responses delta events, byte for byte what
// appendResponsesEvent would (json.Marshal, so with HTML escaped): see
// TestFastEventWriters and FuzzFastEventWriters, and BenchmarkHandStreams
// for the figures. Their logprobs, where they have them, are always the
// empty list.

func (ev textDeltaEvent) append(dst []byte) []byte {
	if ev.Logprobs == nil || len(ev.Logprobs) > 0 {
		return appendResponsesEvent(dst, ev)
	}
	return appendResponsesDelta(dst, ev.eventHeader, ev.ItemID, ev.OutputIndex, `,"content_index":`, ev.ContentIndex, ev.Delta, true)
}

func (ev refusalDeltaEvent) append(dst []byte) []byte {
	return appendResponsesDelta(dst, ev.eventHeader, ev.ItemID, ev.OutputIndex, `,"content_index":`, ev.ContentIndex, ev.Delta, false)
}

func (ev summaryDeltaEvent) append(dst []byte) []byte {
	return appendResponsesDelta(dst, ev.eventHeader, ev.ItemID, ev.OutputIndex, `,"summary_index":`, ev.SummaryIndex, ev.Delta, false)
}

func (ev argumentsDeltaEvent) append(dst []byte) []byte {
	return appendResponsesDelta(dst, ev.eventHeader, ev.ItemID, ev.OutputIndex, "", 0, ev.Delta, false)
}

// appendResponsesDelta writes a Responses delta event: its header, the
// item's id and output_index, the member index (its key given whole, as
// `,"content_index":`, or none if ""), the delta, and with logprobs an
// empty logprobs.
func appendResponsesDelta(dst []byte, h eventHeader, itemID string, outputIndex int, indexKey string, index int, delta string, logprobs bool) []byte {
	dst = grow(dst, 2*len(h.Type)+len(itemID)+128, delta)
	dst = append(dst, "event: "...)
	dst = append(dst, h.Type...)
	dst = append(dst, "\ndata: {\"type\":"...)
	dst = appendJSONString(dst, h.Type, true)
	dst = append(dst, `,"sequence_number":`...)
	dst = strconv.AppendInt(dst, h.SequenceNumber, 10)
	dst = append(dst, `,"item_id":`...)
	dst = appendJSONString(dst, itemID, true)
	dst = append(dst, `,"output_index":`...)
	dst = strconv.AppendInt(dst, int64(outputIndex), 10)
	if indexKey != "" {
		dst = append(dst, indexKey...)
		dst = strconv.AppendInt(dst, int64(index), 10)
	}
	dst = append(dst, `,"delta":`...)
	dst = appendJSONString(dst, delta, true)
	if logprobs {
		dst = append(dst, `,"logprobs":[]`...)
	}
	return append(dst, "}\n\n"...)
}
