package fold

import (
	"fmt"
	"strings"

	"github.com/loom-kernel/loom-conform/manifest"
)

// EventShape is one row of the payload catalogue (DESIGN §3.5, docs/events.md).
type EventShape struct {
	Name       string // the event type
	Since      string // schema version it arrived in (manifest)
	Level      string // execution, step or fact (manifest)
	Payload    string // payload shape; '?' marks an optional member
	Folds      string // what the fold does with it
	KernelOnly bool   // folds only from a metadata.kernel: true envelope
}

// shapes is the immutable catalogue text, keyed by event type.
var shapes = map[string]struct {
	payload, folds string
	kernelOnly     bool
}{
	"EXECUTION_STARTED": {"`{input, flowId?, flowHash?, codeHash?, principal?, parent?, chain?, carry?: {resources?, inbox?, quarantined?}}`",
		"status running, startedAt, `_input`; from 1.23.0 `_codeHash`, `_principal`, `_parent`, `_chain` (metadata forkedBy/forkChain stand in on a kernel-stamped start) and a valid carry replaces `_resources` (the six dimensions as one group, `custom` on its own), `_inbox`, `_quarantined` (1.25.0), each only when the carry's member is non-empty (I-FOLD-26)", false},
	"EXECUTION_SUSPENDED": {"`{on, timeout?, wakeAt?, correlationKey?, condition?: {stepId?, attempt?}, waits?: [{waitId, ...}]}`",
		"status suspended, `_suspendedOn` = the present members of on/timeout/wakeAt/correlationKey/condition; from 1.21.0 removes `_failedWhileParked`; from 1.23.0 `_waits` = {waitId: wait} when waits is an array (`{}` for `[]` or only invalid entries; I-FOLD-26), else removed (an older profile leaves both as it leaves any variable, I-FOLD-42)", false},
	"EXECUTION_RESUMED": {"the answer verbatim (`null` = a null answer); kernel-stamped `{waitId, answer}` addresses a wait (1.23.0)",
		"status running, ends the park (`_suspendedOn` removed, `_failedWhileParked` from 1.21.0, `_waits` from 1.23.0; I-FOLD-42); appends to `_resumePayloads` unless it is null and answers no gate (not parked, `__loom_indoubt__`, `__loom_diverged__` from 1.23.0 (an ordinary gate before), `_failedWhileParked` from 1.21.0); a wait-addressed resume sets `_waitAnswers[waitId]` instead", false},
	"EXECUTION_COMPLETED": {"`{output}`", "status completed, `_output`; ends the park", false},
	"EXECUTION_FAILED":    {"`{error}`", "status failed, `_error`; ends the park", false},
	"EXECUTION_CANCELLED": {"`{reason?}`", "status cancelled; ends the park", false},
	"EXECUTION_MIGRATED":  {"`{fromFlowHash?, toFlowHash?, toCodeHash?, migratedInput?}`", "`migratedInput` replaces `_input` (1.15.0); `toCodeHash` replaces `_codeHash` (1.23.0)", false},
	"EXECUTION_RECOVERED": {"`{by?}`", "log-only: changes no folded key", false},
	"EXECUTION_CONTINUED": {"`{continuedTo, carried?}`", "terminal status continued, `_continuedTo`; ends the park", true},
	"STEP_STARTED":        {"`{stepId, attempt, kind?, toolId?, input}`", "a fresh frame {stepId, status running, attempt (the payload's number when finite, else 1), input}", false},
	"STEP_RETRYING":       {"`{stepId, attempt, error?}`", "frame status retrying; attempt (when a finite number) and error when present (else the frame's are kept); input kept", false},
	"STEP_COMPLETED":      {"`{stepId, output}`", "frame status completed, output; error fields cleared; input dropped (1.26.0)", false},
	"STEP_FAILED": {"`{stepId, error, channel?, payload?}`",
		"frame status failed, error, errorChannel/errorPayload when channel is a string (1.17.0); input dropped (1.26.0); while suspended sets `_failedWhileParked` (1.21.0); never moves the status (before 1.21.0 it failed the execution)", false},
	"STEP_CANCELLED":     {"`{stepId, reason?}`", "frame status cancelled; input dropped (1.26.0)", false},
	"DECISION_RECORDED":  {"`{id, choice, context?, policy?, innerSteps?}`", "`_decisions[id]` = {choice, context?, policy?, innerSteps? (kernel-stamped only), seq (1.24.0: the first record's envelope sequence)}", false},
	"EFFECT_INDOUBT":     {"`{stepId, attempt}`", "log-only", false},
	"TIMER_FIRED":        {"`{wakeAt}`", "log-only", false},
	"APPROVAL_GRANTED":   {"`{eventType, by?}`", "log-only", false},
	"RESOURCE_METERED":   {"`{stepId?, tokens?, costUsd?, ms?, memBytes?, wallMs?, netBytes?, custom?}`", "finite non-negative dimensions summed into `_resources`; `custom` (1.23.0) into `_resources.custom`", false},
	"QUOTA_EXCEEDED":     {"`{dimension?, reason}`", "log-only", false},
	"SAFETY_BLOCKED":     {"`{stepId?, reason?}`", "log-only", false},
	"EGRESS_DENIED":      {"`{stepId?, host?, reason?}`", "log-only", false},
	"EFFECT_DENIED":      {"`{stepId?, reason?}`", "log-only", false},
	"OUTCOME_RECORDED":   {"`{..., recordedBy?, late?}`", "log-only", false},
	"PARALLEL_COMPLETED": {"`{scopeId, branches?}`", "`_scopes[scopeId]` = the payload (1.23.0)", true},
	"EVENTS_REHOMED":     {"audit object", "appended to `_lifecycle` (1.22.0)", false},
	"MESSAGE_CONSUMED":   {"`{topic, messageId, waitId?, message?}`", "`_inbox[topic]` = {count, last}; `_waitAnswers[waitId]` = message; drops the topic's released `_quarantined` head of that messageId (1.25.0)", true},
	"INBOX_QUARANTINED":  {"`{topic, messageId, message?}`", "appends a held entry to `_quarantined[topic]` (at most 1 024)", true},
	"INBOX_RELEASED":     {"`{topic, messageId, operator?, auto?, deliver?}`", "exactly one of operator/auto carried (present and not null, whatever its value; I-FOLD-27), auto only with deliver: true, else ignored; releases the topic's oldest held entry (deliver) or discards it", true},
}

// ReservedVariable is one reserved key of the folded variables and its JSON shape.
type ReservedVariable struct {
	Name, Shape, WrittenBy string
}

// ReservedVariables lists the reserved keys the fold writes (DESIGN §3.2), with the JSON shape of
// each as State prints it. A reserved key is absent, never null or empty, until written.
func ReservedVariables() []ReservedVariable {
	return []ReservedVariable{
		{VarInput, "any", "EXECUTION_STARTED.input; EXECUTION_MIGRATED.migratedInput (1.15.0)"},
		{VarOutput, "any", "EXECUTION_COMPLETED.output"},
		{VarError, "any", "EXECUTION_FAILED.error (a re-open keeps it)"},
		{VarSuspendedOn, "`{on, timeout?, wakeAt?, correlationKey?, condition?}`", "EXECUTION_SUSPENDED; removed when the park ends"},
		{VarResumePayloads, "`[answer, ...]`", "EXECUTION_RESUMED answering a gate (1.16.0, 1.20.0)"},
		{VarFlowEmits, "`{digest: count}`", "any envelope stamped metadata.flowEmit (1.19.0)"},
		{VarDecisions, "`{id: {choice, seq?, context?, policy?, innerSteps?}}`", "DECISION_RECORDED (1.18.0, 1.23.0, 1.24.0)"},
		{VarFailedWhileParked, "`true`", "STEP_FAILED while suspended; removed when the park ends (1.21.0)"},
		{VarLifecycle, "`[audit, ...]`", "EVENTS_REHOMED (1.22.0)"},
		{VarContinuedTo, "any", "EXECUTION_CONTINUED.continuedTo (1.23.0)"},
		{VarInbox, "`{topic: {count, last}}`", "MESSAGE_CONSUMED; carry (1.23.0)"},
		{VarWaitAnswers, "`{waitId: answer}`", "wait-addressed EXECUTION_RESUMED; MESSAGE_CONSUMED.waitId (1.23.0)"},
		{VarWaits, "`{waitId: wait}`", "EXECUTION_SUSPENDED.waits; removed when the park ends (1.23.0)"},
		{VarScopes, "`{scopeId: payload}`", "PARALLEL_COMPLETED (1.23.0)"},
		{VarPrincipal, "any", "EXECUTION_STARTED.principal (1.23.0)"},
		{VarParent, "any", "EXECUTION_STARTED.parent or metadata.forkedBy (1.23.0)"},
		{VarChain, "any", "EXECUTION_STARTED.chain or metadata.forkChain (1.23.0)"},
		{VarCodeHash, "any", "EXECUTION_STARTED.codeHash; EXECUTION_MIGRATED.toCodeHash (1.23.0)"},
		{VarResources, "`{tokens?, costUsd?, ms?, memBytes?, wallMs?, netBytes?, custom?: {name: n}}`", "RESOURCE_METERED; carry (spec §8, 1.23.0)"},
		{VarQuarantined, "`{topic: [{messageId, state, message?}]}` (state held or released; shape released? held*, at most 1 024)", "INBOX_QUARANTINED, INBOX_RELEASED, MESSAGE_CONSUMED; carry (1.25.0)"},
	}
}

// EventShapes returns the payload catalogue, one row per type of manifest.EventTypes(), in the
// manifest's order.
func EventShapes() []EventShape {
	var out []EventShape
	for _, e := range manifest.EventTypes() {
		s, ok := shapes[e.Name]
		if !ok {
			s.payload, s.folds = "(not catalogued)", "(no handler)"
		}
		out = append(out, EventShape{Name: e.Name, Since: e.Since, Level: e.Level, Payload: s.payload, Folds: s.folds, KernelOnly: s.kernelOnly})
	}
	return out
}

// EventsMarkdown renders docs/events.md from EventShapes.
func EventsMarkdown() string {
	var b strings.Builder
	fmt.Fprintf(&b, "# Event catalogue (event schema %s)\n\n", manifest.EventSchemaVersion)
	b.WriteString("Generated from `manifest.EventTypes()` and `reference/fold.EventShapes()` by\n" +
		"`go test ./reference/fold -run TestEventsDocCurrent -update`; do not edit by hand.\n\n" +
		"Every envelope is `{id, workflowId, executionId, eventType, sequence, timestamp, payload, metadata?}` (DESIGN §3.1;\n" +
		"the terms are in glossary.md). `timestamp` is an integer count of milliseconds since the Unix epoch (UTC); `wakeAt`,\n" +
		"`timeout` and every other instant or duration in a payload use milliseconds too.\n" +
		"Every envelope, known or not, sets `sequence` and `updatedAt` (its timestamp); a `metadata.flowEmit` string stamp counts in\n" +
		"`_flowEmits` whatever the type (1.19.0); `metadata.seal` is ignored (1.25.0). An unknown type is inert. A\n" +
		"`__proto__` container key (stepId, decision id, digest, topic, wait id, scope id, custom dimension, a key of a\n" +
		"carry's objects) rejects the envelope: it changes nothing else. Kernel-only rows fold only from\n" +
		"`metadata.kernel: true`; otherwise they are no-ops. Within one envelope that gate comes first, then a\n" +
		"`__proto__` container key, then the members (a missing messageId, an invalid carry member; I-FOLD-40, I-FOLD-30); a\n" +
		"repeated member counts once, with its last value (I-FOLD-31). Interpretations: I-FOLD-n in\n" +
		"docs/interpretations.md; which rule wins where several meet: docs/vectors.md §8.\n\n")
	b.WriteString("| event | since | level | payload | fold | kernel-only |\n| --- | --- | --- | --- | --- | --- |\n")
	for _, s := range EventShapes() {
		k := ""
		if s.KernelOnly {
			k = "yes"
		}
		fmt.Fprintf(&b, "| %s | %s | %s | %s | %s | %s |\n", s.Name, s.Since, s.Level, s.Payload, s.Folds, k)
	}
	b.WriteString(envelopesSection)
	b.WriteString(numbersSection)
	b.WriteString("\n## Reserved variables\n\nThe folded state is `{status, frames, variables, sequence, startedAt, updatedAt}` (DESIGN §3.2); a frame is\n" +
		"`{stepId, status, attempt, input?, output?, error?, errorChannel?, errorPayload?}`. The fold writes these\n" +
		"reserved variables (absent until written):\n\n| key | shape | written by |\n| --- | --- | --- |\n")
	for _, r := range ReservedVariables() {
		fmt.Fprintf(&b, "| `%s` | %s | %s |\n", r.Name, r.Shape, r.WrittenBy)
	}
	return b.String()
}

// envelopesSection is the envelope decoder's rules as docs/events.md states them (I-FOLD-22, I-FOLD-23).
const envelopesSection = `
## Envelopes

Every entry point reads envelopes with one decoder (` + "`fold.DecodeEnvelope`, `fold.Envelopes`" + `; I-FOLD-22):

| member | must be | notes |
| --- | --- | --- |
| ` + "`id`, `workflowId`, `executionId`, `eventType`" + ` | a string | ` + "`id`" + ` is required though the fold never reads it |
| ` + "`sequence`" + ` | an integer >= 0 | dense per execution from 0 (or the snapshot's sequence + 1) |
| ` + "`timestamp`" + ` | an integer (epoch ms) | any sign; becomes ` + "`updatedAt`" + ` (and ` + "`startedAt`" + ` on EXECUTION_STARTED) |
| ` + "`payload`" + ` | present, any JSON value | ` + "`null`" + ` included |
| ` + "`metadata`" + ` | absent, ` + "`null`" + ` or an object | |

Other members are ignored. An integer is a JSON number whose value is whole and at most 2^53-1 in
magnitude, whatever its spelling: ` + "`0.0`, `1e3` and `-0`" + ` are integers (as ` + "`JSON.parse`" + ` reads them),
` + "`1.5`, `1e400` and `9007199254740992`" + ` are not. A member that is missing, ` + "`null`" + ` or of the wrong type is
the error kind ` + "`invalid-envelope`" + `, worded ` + "`envelope <i>: <member>: missing`" + ` or
` + "`envelope <i>: <member>: want <what>, got <value>`" + `; the kind ` + "`sequence`" + ` is only for well-formed envelopes
whose sequences are not dense, and ` + "`mixed-executions`" + ` for a second ` + "`executionId`" + `. When a log breaks
several rules the first envelope at fault decides; within one envelope: shape, then sequence, then
executionId (I-FOLD-23). A repeated member is judged by its last occurrence, as ` + "`JSON.parse`" + ` keeps it
(I-FOLD-31).
`

// numbersSection is how the fold reads numbers, as docs/events.md states it (I-FOLD-21, I-FOLD-29).
const numbersSection = `
## Numbers

Every state the fold prints reads back as a snapshot of the same state (spec §4, fold(snapshot@k, tail) ==
fold(events)). Payload numbers are read as ` + "`JSON.parse`" + ` reads them, as IEEE doubles: ` + "`-0`" + ` prints ` + "`0`" + `,
` + "`1e-400`" + ` is ` + "`0`" + `, ` + "`9007199254740993`" + ` is ` + "`9007199254740992`" + `, and a literal beyond the double range
(` + "`1e400`" + `) is Infinity, which no state can print (I-FOLD-29):

| number | rule |
| --- | --- |
| a frame's ` + "`attempt`" + ` | the payload's number when finite; else 1 on a new frame, the frame's own otherwise (I-FOLD-9) |
| a measurement (RESOURCE_METERED, a carry's ` + "`resources`" + `) | counts when finite and >= 0; sums saturate at 1.7976931348623157e308 (I-FOLD-15, I-FOLD-21) |
| ` + "`_inbox[topic].count`, `_flowEmits[digest]`" + ` | integers that saturate at 2^53-1 (I-FOLD-21); a carry's count is an integer (I-FOLD-22) |
| ` + "`sequence`, `startedAt`, `updatedAt`" + `, a decision's ` + "`seq`" + ` | copied from envelope integers (I-FOLD-22) |
| any other payload value the fold keeps | verbatim, printed as ` + "`JSON.stringify`" + ` prints it: ` + "`1e400`" + ` as ` + "`null`" + `, ` + "`-0`" + ` as ` + "`0`" + ` |

No number makes the fold refuse an envelope (payload content never does, I-FOLD-2); the snapshot reader
takes exactly what the fold prints (a frame's attempt must be a finite number, I-FOLD-24).
`
