package fold

import "github.com/loom-kernel/loom-conform/spi"

// The quarantine queues (1.25.0, I-FOLD-10) are copy-on-write at the pass boundary like every
// container: clone clips each queue, so the first change a pass makes to a topic's queue copies
// it. From then on the pass owns that copy (qOwned) and appends and releases in place, and a
// queue longer than qIndexFrom has its message ids indexed (qIDs), so filling a queue to
// MaxQuarantined within one pass costs amortised O(1) per fact, not a copy and a scan each.

// qIndexFrom is the queue length from which duplicate checks use the per-pass index.
const qIndexFrom = 32

// inboxQuarantined (kernel-stamped, 1.25.0): a held entry appended to the topic's queue, unless
// the message is already queued or the queue holds MaxQuarantined entries.
func (ps *pass) inboxQuarantined(e *spi.Envelope) bool {
	f, _ := ps.fields(e.Payload, "topic", "messageId", "message")
	topic, ok1 := stringValue(f[0])
	msgID, ok2 := stringValue(f[1])
	if ok1 && topic == protoKey {
		return true // a reserved key rejects before any member is judged (I-FOLD-30)
	}
	if !ok1 || !ok2 {
		return false
	}
	q := ps.s.Variables.Quarantined[topic]
	if len(q) >= MaxQuarantined || ps.queued(topic, q, msgID) {
		return false
	}
	q = append(ps.own(topic, q, 1), QuarantineEntry{MessageID: msgID, Message: f[2]})
	if ids := ps.qIDs[topic]; ids != nil {
		ids[msgID] = struct{}{}
	}
	ps.setQueue(topic, q)
	return false
}

// inboxReleased (kernel-stamped, 1.25.0): exactly one of operator/auto, auto only with deliver;
// otherwise ignored. Release preserves order: only the oldest held entry, with no released entry
// ahead of it, is released. With deliver it becomes the released head awaiting its
// MESSAGE_CONSUMED; without, it is discarded (I-FOLD-10).
func (ps *pass) inboxReleased(e *spi.Envelope) bool {
	f, _ := ps.fields(e.Payload, "topic", "messageId", "operator", "auto", "deliver")
	topic, ok1 := stringValue(f[0])
	msgID, ok2 := stringValue(f[1])
	if ok1 && topic == protoKey {
		return true // a reserved key rejects before any member is judged (I-FOLD-30)
	}
	if !ok1 || !ok2 {
		return false
	}
	hasOp := f[2] != nil && !isNull(f[2])
	hasAuto := f[3] != nil && !isNull(f[3])
	deliver := f[4] != nil && isTrue(f[4])
	if hasOp == hasAuto || (hasAuto && !deliver) {
		return false
	}
	q := ps.s.Variables.Quarantined[topic]
	if len(q) == 0 || q[0].Released || q[0].MessageID != msgID {
		return false
	}
	if !deliver {
		ps.dropHead(topic, q)
		return false
	}
	q = ps.own(topic, q, 0)
	q[0].Released = true
	ps.setQueue(topic, q)
	return false
}

// queued reports whether msgID is in the topic's queue q: a scan while q is short, else the
// pass's index of q, built on first use.
func (ps *pass) queued(topic string, q []QuarantineEntry, msgID string) bool {
	ids := ps.qIDs[topic]
	if ids == nil && len(q) >= qIndexFrom {
		ids = make(map[string]struct{}, 2*len(q))
		for _, x := range q {
			ids[x.MessageID] = struct{}{}
		}
		if ps.qIDs == nil {
			ps.qIDs = map[string]map[string]struct{}{}
		}
		ps.qIDs[topic] = ids
	}
	if ids != nil {
		_, ok := ids[msgID]
		return ok
	}
	for _, x := range q {
		if x.MessageID == msgID {
			return true
		}
	}
	return false
}

// own returns the topic's queue q as a slice this pass may write in place, with room for extra
// more entries: the queue itself once the pass owns it, else a copy with doubled capacity.
func (ps *pass) own(topic string, q []QuarantineEntry, extra int) []QuarantineEntry {
	if ps.qOwned[topic] {
		return q
	}
	nq := make([]QuarantineEntry, len(q), max(2*(len(q)+extra), 4))
	copy(nq, q)
	if ps.qOwned == nil {
		ps.qOwned = map[string]bool{}
	}
	ps.qOwned[topic] = true
	return nq
}

// dropHead removes the head entry of the topic's queue q (a discard or a delivered release).
func (ps *pass) dropHead(topic string, q []QuarantineEntry) {
	if ids := ps.qIDs[topic]; ids != nil {
		delete(ids, q[0].MessageID)
	}
	ps.setQueue(topic, q[1:])
}

// setQueue replaces a topic's quarantine queue; an empty queue and an empty map are removed.
func (ps *pass) setQueue(topic string, q []QuarantineEntry) {
	v := &ps.s.Variables
	if len(q) == 0 {
		delete(v.Quarantined, topic)
		delete(ps.qOwned, topic)
		delete(ps.qIDs, topic)
		if len(v.Quarantined) == 0 {
			v.Quarantined = nil
		}
		return
	}
	if v.Quarantined == nil {
		v.Quarantined = map[string][]QuarantineEntry{}
	}
	v.Quarantined[topic] = q
}

// resetQueues forgets what the pass knew of the queues when they are replaced whole (a carry).
func (ps *pass) resetQueues() {
	ps.qOwned, ps.qIDs = nil, nil
}
