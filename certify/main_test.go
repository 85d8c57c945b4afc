package certify_test

import (
	"testing"

	"github.com/loom-kernel/loom-conform/certify/certifytest"
)

func TestMain(m *testing.M) { certifytest.Main(m) }
