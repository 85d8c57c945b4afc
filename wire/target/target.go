package target

import (
	"context"
	"fmt"
)

// DefaultBridgePort is the container port a bridge image listens on unless told otherwise.
const DefaultBridgePort = "8080"

// Target is what a certification runs against: something that starts (or finds) a store bridge.
type Target interface {
	// Start brings the bridge up and returns it running. The caller always calls Running.Stop.
	Start(ctx context.Context) (*Running, error)
	// Describe names the target before it starts (for messages and the reproducing command).
	Describe() Identity
}

// Identity says what was certified; it goes into every report.
type Identity struct {
	Kind string `json:"kind"` // builtin, url, dsn, exec, image
	// Spec is what the user named: the backend, URL, command line or image reference.
	Spec string `json:"spec"`
	// Flag is the certify flag that selects this target, with its value (for reproducing commands).
	Flag        string   `json:"-"`
	ImageID     string   `json:"imageId,omitempty"`
	RepoDigests []string `json:"repoDigests,omitempty"`
	ContainerID string   `json:"containerId,omitempty"`
	PID         int      `json:"pid,omitempty"`
	URL         string   `json:"url,omitempty"`
}

func (id Identity) String() string {
	s := fmt.Sprintf("%s %s", id.Kind, id.Spec)
	if id.ImageID != "" {
		s += " (" + shortID(id.ImageID) + ")"
	}
	return s
}

func shortID(id string) string {
	if len(id) > 19 {
		return id[:19]
	}
	return id
}

// Running is a started bridge.
type Running struct {
	URL      string
	Identity Identity
	// Token is the bearer token the started bridge requires, when the target chose it (an image
	// served beyond the container's loopback); "" leaves the caller's own (certify --token).
	Token string
	// Logs returns what the bridge printed (bounded); nil when there is nothing to capture.
	Logs func(ctx context.Context) string
	// Pauser freezes and thaws the bridge process (nil when the target cannot be paused).
	Pauser Pauser
	// Stop tears the target down (a container is removed); safe to call more than once.
	Stop func(ctx context.Context) error
	// Alive reports whether the parts of the target the harness can see are up: nil when they
	// are, else an error naming the component that is gone or frozen ("the bridge process (pid 7)
	// exited: signal: killed", "the database … does not answer"). nil Alive means the target has
	// no such parts (a URL); the harness then relies on the handshake probe alone.
	Alive func(ctx context.Context) error
}

// Pauser freezes and thaws a bridge (docker pause, SIGSTOP) for fault checks.
type Pauser interface {
	Pause(ctx context.Context) error
	Resume(ctx context.Context) error
}
