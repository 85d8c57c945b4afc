package spi

import "github.com/loom-kernel/loom-conform/manifest"

// Method names, as in manifest.Spis().
const (
	MethodAppend             = "append"
	MethodRead               = "read"
	MethodReadRange          = "readRange"
	MethodAcquireFence       = "acquireFence"
	MethodAcquireFenceIf     = "acquireFenceIf"
	MethodAppendIfUnchanged  = "appendIfUnchanged"
	MethodStoreNow           = "storeNow"
	MethodDeleteThrough      = "deleteThrough"
	MethodSealingCapability  = "sealingCapability"
	MethodCopyPrefix         = "copyPrefix"
	MethodDeleteExecution    = "deleteExecution"
	MethodListExecutionsPage = "listExecutionsPage"
	MethodSave               = "save"
	MethodLoadLatest         = "loadLatest"
	MethodLoadLatestSealed   = "loadLatestSealed"
	MethodPruneSnapshots     = "pruneSnapshots"
	MethodListSequences      = "listSequences"
	MethodReplaceSegments    = "replaceSegments"
	MethodRegister           = "register"
	MethodGet                = "get"
	MethodListChildren       = "listChildren"
	MethodPut                = "put"
	MethodPutStream          = "putStream"
	MethodOwner              = "owner"
	MethodSealsContent       = "sealsContent"
	MethodSet                = "set"
	MethodDelete             = "delete"
	MethodUpsert             = "upsert"
	MethodQuery              = "query"
)

// Capabilities is implemented by values that have every Go method of a seam but forward to
// something that may lack some (decorators, bridge clients). Implements(method) says whether the
// optional method (a manifest name such as "readRange") really works.
type Capabilities interface {
	Implements(method string) bool
}

// Has reports whether store implements the optional method of seam: the Go interface is there and,
// when store implements Capabilities, it says yes. Unknown names are false.
func Has(seam string, store any, method string) bool {
	if !hasGoMethod(seam, store, method) {
		return false
	}
	if c, ok := store.(Capabilities); ok {
		return c.Implements(method)
	}
	return true
}

func hasGoMethod(seam string, store any, method string) bool {
	switch seam {
	case manifest.SeamEventStore:
		if _, ok := store.(EventStore); !ok {
			return false
		}
		switch method {
		case MethodAppend, MethodRead:
			return true
		case MethodReadRange:
			_, ok := store.(RangeReader)
			return ok
		case MethodAcquireFence:
			_, ok := store.(Fencer)
			return ok
		case MethodAcquireFenceIf:
			_, ok := store.(ConditionalFencer)
			return ok
		case MethodAppendIfUnchanged:
			_, ok := store.(ConditionalAppender)
			return ok
		case MethodStoreNow:
			_, ok := store.(Clock)
			return ok
		case MethodDeleteThrough:
			_, ok := store.(ThroughDeleter)
			return ok
		case MethodSealingCapability:
			_, ok := store.(SealingReporter)
			return ok
		case MethodCopyPrefix:
			_, ok := store.(PrefixCopier)
			return ok
		case MethodDeleteExecution:
			_, ok := store.(ExecutionDeleter)
			return ok
		case MethodListExecutionsPage:
			_, ok := store.(ExecutionLister)
			return ok
		}
	case manifest.SeamSnapshotStore:
		if _, ok := store.(SnapshotStore); !ok {
			return false
		}
		switch method {
		case MethodSave, MethodLoadLatest:
			return true
		case MethodDeleteExecution:
			_, ok := store.(SnapshotDeleter)
			return ok
		case MethodLoadLatestSealed:
			_, ok := store.(SealedLoader)
			return ok
		case MethodPruneSnapshots:
			_, ok := store.(SnapshotPruner)
			return ok
		case MethodListSequences:
			_, ok := store.(SequenceLister)
			return ok
		}
	case manifest.SeamArchiveStore:
		if _, ok := store.(ArchiveStore); !ok {
			return false
		}
		switch method {
		case MethodAppend, MethodRead:
			return true
		case MethodDeleteExecution:
			_, ok := store.(ArchiveDeleter)
			return ok
		case MethodReplaceSegments:
			_, ok := store.(SegmentReplacer)
			return ok
		}
	case manifest.SeamBranchRegistry:
		if _, ok := store.(BranchRegistry); !ok {
			return false
		}
		switch method {
		case MethodRegister, MethodGet, MethodListChildren:
			return true
		}
	case manifest.SeamContentStore:
		if _, ok := store.(ContentStore); !ok {
			return false
		}
		switch method {
		case MethodPut, MethodGet, MethodPutStream:
			return true
		case MethodOwner:
			_, ok := store.(OwnedContentStore)
			return ok
		case MethodSealsContent:
			_, ok := store.(ContentSealer)
			return ok
		}
	case manifest.SeamDurableStateStore:
		if _, ok := store.(DurableStateStore); !ok {
			return false
		}
		switch method {
		case MethodGet, MethodSet, MethodDelete:
			return true
		}
	case manifest.SeamReadModelStore:
		if _, ok := store.(ReadModelStore); !ok {
			return false
		}
		switch method {
		case MethodUpsert, MethodQuery:
			return true
		}
	case manifest.SeamExecutionDispatcher:
		if _, ok := store.(ExecutionDispatcher); !ok {
			return false
		}
		switch method {
		case MethodDispatch, MethodTargets:
			return true
		case MethodClaim, MethodHeartbeat, MethodAck:
			_, ok := store.(LeaseQueue)
			return ok
		}
	}
	return false
}

// ClaimedVersion returns the SPI version store claims for seam, and whether it states one. A store
// that states none is held to the current version of the seam (or the run's cap), I-STORE-21.
func ClaimedVersion(seam string, store any) (string, bool) {
	switch seam {
	case manifest.SeamEventStore:
		if v, ok := store.(EventStoreVersioned); ok {
			return v.EventStoreSpiVersion(), true
		}
	case manifest.SeamSnapshotStore:
		if v, ok := store.(SnapshotStoreVersioned); ok {
			return v.SnapshotStoreSpiVersion(), true
		}
	case manifest.SeamArchiveStore:
		if v, ok := store.(ArchiveStoreVersioned); ok {
			return v.ArchiveStoreSpiVersion(), true
		}
	case manifest.SeamBranchRegistry:
		if v, ok := store.(BranchRegistryVersioned); ok {
			return v.BranchRegistrySpiVersion(), true
		}
	case manifest.SeamContentStore:
		if v, ok := store.(ContentStoreVersioned); ok {
			return v.ContentStoreSpiVersion(), true
		}
	case manifest.SeamDurableStateStore:
		if v, ok := store.(DurableStateStoreVersioned); ok {
			return v.DurableStateStoreSpiVersion(), true
		}
	case manifest.SeamReadModelStore:
		if v, ok := store.(ReadModelStoreVersioned); ok {
			return v.ReadModelStoreSpiVersion(), true
		}
	case manifest.SeamExecutionDispatcher:
		if v, ok := store.(ExecutionDispatcherVersioned); ok {
			return v.ExecutionDispatcherSpiVersion(), true
		}
	}
	return "", false
}
