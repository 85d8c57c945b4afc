package bridge

import (
	"encoding/json"

	"github.com/loom-kernel/loom-conform/manifest"
	"github.com/loom-kernel/loom-conform/reference/fold"
	"github.com/loom-kernel/loom-conform/spi"
)

// ProtocolVersion is the version of the store bridge protocol (docs/bridge.md). A MINOR bump adds
// methods or optional fields; a MAJOR bump changes a message shape.
const ProtocolVersion = "1.0.0"

// MethodHandshake is the one method every bridge answers.
const MethodHandshake = "bridge.handshake"

// Method describes one wire method: its JSON-RPC name, the seam it belongs to and the manifest
// method name a handshake lists to declare it (eventStore.observe is declared by
// "appendIfUnchanged", the two only make sense together).
type Method struct {
	Name      string `json:"name"`
	Seam      string `json:"seam"`
	SpiMethod string `json:"spiMethod"`
}

// Methods is the wire method table, in documentation order (bridge.handshake excluded).
func Methods() []Method {
	es, ss, as, br := manifest.SeamEventStore, manifest.SeamSnapshotStore, manifest.SeamArchiveStore, manifest.SeamBranchRegistry
	cs, ds, rm := manifest.SeamContentStore, manifest.SeamDurableStateStore, manifest.SeamReadModelStore
	return []Method{
		{"eventStore.append", es, spi.MethodAppend},
		{"eventStore.read", es, spi.MethodRead},
		{"eventStore.readRange", es, spi.MethodReadRange},
		{"eventStore.acquireFence", es, spi.MethodAcquireFence},
		{"eventStore.acquireFenceIf", es, spi.MethodAcquireFenceIf},
		{"eventStore.observe", es, spi.MethodAppendIfUnchanged},
		{"eventStore.appendIfUnchanged", es, spi.MethodAppendIfUnchanged},
		{"eventStore.storeNow", es, spi.MethodStoreNow},
		{"eventStore.deleteThrough", es, spi.MethodDeleteThrough},
		{"eventStore.sealingCapability", es, spi.MethodSealingCapability},
		{"eventStore.copyPrefix", es, spi.MethodCopyPrefix},
		{"eventStore.deleteExecution", es, spi.MethodDeleteExecution},
		{"eventStore.listExecutionsPage", es, spi.MethodListExecutionsPage},
		{"snapshotStore.save", ss, spi.MethodSave},
		{"snapshotStore.loadLatest", ss, spi.MethodLoadLatest},
		{"snapshotStore.loadLatestSealed", ss, spi.MethodLoadLatestSealed},
		{"snapshotStore.deleteExecution", ss, spi.MethodDeleteExecution},
		{"snapshotStore.pruneSnapshots", ss, spi.MethodPruneSnapshots},
		{"snapshotStore.listSequences", ss, spi.MethodListSequences},
		{"archiveStore.append", as, spi.MethodAppend},
		{"archiveStore.read", as, spi.MethodRead},
		{"archiveStore.deleteExecution", as, spi.MethodDeleteExecution},
		{"archiveStore.replaceSegments", as, spi.MethodReplaceSegments},
		{"branchRegistry.register", br, spi.MethodRegister},
		{"branchRegistry.get", br, spi.MethodGet},
		{"branchRegistry.listChildren", br, spi.MethodListChildren},
		{"contentStore.put", cs, spi.MethodPut},
		{"contentStore.get", cs, spi.MethodGet},
		{"contentStore.streamOpen", cs, spi.MethodPutStream},
		{"contentStore.streamWrite", cs, spi.MethodPutStream},
		{"contentStore.streamCommit", cs, spi.MethodPutStream},
		{"contentStore.streamAbort", cs, spi.MethodPutStream},
		{"contentStore.sealsContent", cs, spi.MethodSealsContent},
		{"durableStateStore.get", ds, spi.MethodGet},
		{"durableStateStore.set", ds, spi.MethodSet},
		{"durableStateStore.delete", ds, spi.MethodDelete},
		{"readModelStore.upsert", rm, spi.MethodUpsert},
		{"readModelStore.query", rm, spi.MethodQuery},
		{"dispatcher.dispatch", manifest.SeamExecutionDispatcher, spi.MethodDispatch},
		{"dispatcher.targets", manifest.SeamExecutionDispatcher, spi.MethodTargets},
		{"dispatcher.claim", manifest.SeamExecutionDispatcher, spi.MethodClaim},
		{"dispatcher.heartbeat", manifest.SeamExecutionDispatcher, spi.MethodHeartbeat},
		{"dispatcher.ack", manifest.SeamExecutionDispatcher, spi.MethodAck},
	}
}

// LookupMethod returns the wire method named name.
func LookupMethod(name string) (Method, bool) {
	for _, m := range Methods() {
		if m.Name == name {
			return m, true
		}
	}
	return Method{}, false
}

// Seams lists the seams a bridge can serve, in report order.
func Seams() []string {
	return []string{manifest.SeamEventStore, manifest.SeamSnapshotStore, manifest.SeamArchiveStore, manifest.SeamBranchRegistry,
		manifest.SeamContentStore, manifest.SeamDurableStateStore, manifest.SeamReadModelStore,
		manifest.SeamExecutionDispatcher}
}

// Handshake is the result of bridge.handshake.
type Handshake struct {
	Protocol       string                 `json:"protocol"`
	Implementation Implementation         `json:"implementation"`
	Seams          map[string]SeamSupport `json:"seams"`
}

// Implementation names the store behind a bridge.
type Implementation struct {
	Name    string `json:"name"`
	Version string `json:"version"`
}

// SeamSupport is what a bridge declares for one seam: the SPI version it claims and the manifest
// names of the methods it implements (required ones included).
type SeamSupport struct {
	SpiVersion string   `json:"spiVersion"`
	Methods    []string `json:"methods"`
}

// Declares reports whether the handshake lists method for seam.
func (h Handshake) Declares(seam, method string) bool {
	s, ok := h.Seams[seam]
	if !ok {
		return false
	}
	for _, m := range s.Methods {
		if m == method {
			return true
		}
	}
	return false
}

// Parameter shapes of the wire methods (docs/bridge.md gives one example exchange per method).
type (
	handshakeParams struct {
		Client   string `json:"client,omitempty"`
		Protocol string `json:"protocol,omitempty"`
	}
	execParams struct {
		ExecutionID string `json:"executionId"`
	}
	appendParams struct {
		ExecutionID string         `json:"executionId"`
		Events      fold.Envelopes `json:"events"`
		Fence       int64          `json:"fence,omitempty"`
	}
	readRangeParams struct {
		ExecutionID string `json:"executionId"`
		From        int64  `json:"from"`
		To          int64  `json:"to"`
	}
	fenceIfParams struct {
		ExecutionID string `json:"executionId"`
		Expected    int64  `json:"expected"`
	}
	appendIfParams struct {
		ExecutionID string         `json:"executionId"`
		Anchor      string         `json:"anchor"`
		Events      fold.Envelopes `json:"events"`
		Fence       int64          `json:"fence,omitempty"`
	}
	throughParams struct {
		ExecutionID string `json:"executionId"`
		Through     int64  `json:"through"`
	}
	copyPrefixParams struct {
		Source  string `json:"source"`
		Target  string `json:"target"`
		Through int64  `json:"through"`
	}
	listPageParams struct {
		Cursor string `json:"cursor"`
		Limit  int    `json:"limit"`
	}
	noParams   struct{}
	saveParams struct {
		Snapshot spi.Snapshot `json:"snapshot"`
	}
	rangeParams struct {
		ExecutionID string `json:"executionId"`
		From        int64  `json:"from"`
		Through     int64  `json:"through"`
	}
	archiveAppendParams struct {
		ExecutionID string         `json:"executionId"`
		Events      fold.Envelopes `json:"events"`
	}
	replaceParams struct {
		ExecutionID string         `json:"executionId"`
		From        int64          `json:"from"`
		Through     int64          `json:"through"`
		Events      fold.Envelopes `json:"events"`
	}
	registerParams struct {
		Branch spi.Branch `json:"branch"`
	}
	idParams struct {
		ID string `json:"id"`
	}
	parentParams struct {
		ParentID string `json:"parentId"`
	}
	contentPutParams struct {
		Data  []byte `json:"data"`
		Owner string `json:"owner,omitempty"`
	}
	contentGetParams struct {
		Digest string `json:"digest"`
		Owner  string `json:"owner,omitempty"`
	}
	contentData struct {
		Data []byte `json:"data"`
	}
	streamOpenParams struct {
		Owner string `json:"owner,omitempty"`
	}
	streamIDResult struct {
		StreamID string `json:"streamId"`
	}
	streamWriteParams struct {
		StreamID string `json:"streamId"`
		Offset   int64  `json:"offset"`
		Data     []byte `json:"data"`
	}
	streamCommitParams struct {
		StreamID string `json:"streamId"`
		Size     int64  `json:"size"`
	}
	streamAbortParams struct {
		StreamID string `json:"streamId"`
	}
	sealsResult struct {
		Seals bool `json:"seals"`
	}
	keyParams struct {
		Key string `json:"key"`
	}
	stateSetParams struct {
		Key       string          `json:"key"`
		Value     json.RawMessage `json:"value"`
		IfVersion *int64          `json:"ifVersion,omitempty"`
	}
	stateDeleteParams struct {
		Key       string `json:"key"`
		IfVersion *int64 `json:"ifVersion,omitempty"`
	}
	versionResult struct {
		Version int64 `json:"version"`
	}
	upsertParams struct {
		Model string          `json:"model"`
		ID    string          `json:"id"`
		Doc   json.RawMessage `json:"doc"`
	}
	queryParams struct {
		Model  string `json:"model"`
		Limit  int    `json:"limit"`
		Cursor string `json:"cursor,omitempty"`
	}
	anchorResult struct {
		Anchor string `json:"anchor"`
	}
	nowResult struct {
		Now int64 `json:"now"`
	}
)

// JSON-RPC 2.0 framing.
type (
	rpcRequest struct {
		JSONRPC string          `json:"jsonrpc"`
		ID      json.RawMessage `json:"id,omitempty"`
		Method  string          `json:"method"`
		Params  json.RawMessage `json:"params,omitempty"`
	}
	rpcResponse struct {
		JSONRPC string          `json:"jsonrpc"`
		ID      json.RawMessage `json:"id"`
		Result  json.RawMessage `json:"result,omitempty"`
		Error   *RPCError       `json:"error,omitempty"`
	}
)
