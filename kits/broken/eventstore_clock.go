package broken

import (
	"context"
	"time"
)

// --- storeNow in seconds.
type nowInSeconds struct{ es }

func (s nowInSeconds) StoreNow(ctx context.Context) (int64, error) { return time.Now().Unix(), nil }

// --- storeNow in microseconds.
type nowInMicros struct{ es }

func (s nowInMicros) StoreNow(ctx context.Context) (int64, error) { return time.Now().UnixMicro(), nil }
