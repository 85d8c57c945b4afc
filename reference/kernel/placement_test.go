package kernel

import (
	"slices"
	"strings"
	"testing"

	"github.com/loom-kernel/loom-conform/internal/proof"
	"github.com/loom-kernel/loom-conform/internal/srcimports"
)

// providerImports are import path prefixes that carry cloud-provider or orchestrator logic, and the
// harness's own dispatcher implementations: the kernel places an execution through the
// ExecutionDispatcher seam and its targets, never through a provider's API or one dispatcher.
var providerImports = []string{
	"github.com/aws/", "cloud.google.com/", "google.golang.org/api/", "github.com/Azure/", "k8s.io/", "sigs.k8s.io/",
	"github.com/docker/", "github.com/hashicorp/nomad", "github.com/digitalocean/", "github.com/oracle/oci-go-sdk",
	"github.com/loom-kernel/loom-conform/reference/dispatch",
}

// providerLogic returns "<file> imports <path>" for each import of files that carries placement
// logic the kernel must not hold.
func providerLogic(files map[string][]string) []string {
	var out []string
	for file, paths := range files {
		for _, p := range paths {
			if slices.ContainsFunc(providerImports, func(prefix string) bool { return strings.HasPrefix(p, prefix) }) {
				out = append(out, file+" imports "+p)
			}
		}
	}
	slices.Sort(out)
	return out
}

// Reference: spec §6 — placement is a kernel concern, cloud-provider logic is not (P10): no source
// of the kernel (the runtime, its ingress gate and userspace rules) or of the SPI seams it places
// through imports a cloud provider's or orchestrator's SDK or a particular dispatcher. A kernel
// file that places executions on a provider's API is caught.
func TestPlacementCarriesNoProviderLogic(t *testing.T) {
	files := map[string][]string{}
	for _, dir := range []string{".", "ingress", "userspace", "../../spi"} {
		got, err := srcimports.Dir(dir)
		if err != nil || len(got) == 0 {
			t.Fatalf("srcimports.Dir(%s) = %d files, %v; want the package's sources", dir, len(got), err)
		}
		for f, p := range got {
			files[f] = p
		}
	}
	for _, bad := range providerLogic(files) {
		t.Errorf("kernel/PlacementCarriesNoProviderLogic [S6.placement.kernel-concern]: %s, want placement through the dispatcher seam only", bad)
	}
	// A kernel file that places executions on a provider's API.
	ecs := []byte("package kernel\n\nimport \"github.com/aws/aws-sdk-go-v2/service/ecs\"\n\nfunc placeOnECS() *ecs.Client { return nil }\n")
	paths, err := srcimports.Of("placement.go", ecs)
	if err != nil {
		t.Fatal(err)
	}
	const m = "kernel-source/placement/cloud-sdk"
	proof.Registered(t, Mutants(), "reference/kernel:TestPlacementCarriesNoProviderLogic", []string{m})
	if bad := providerLogic(map[string][]string{"placement.go": paths}); len(bad) == 0 {
		t.Errorf("providerLogic(a kernel file importing the ECS SDK) = none, want it reported")
	} else {
		proof.Rejected(t, m, "kernel/PlacementCarriesNoProviderLogic", "kernel/PlacementCarriesNoProviderLogic [S6.placement.kernel-concern]: "+bad[0])
	}
}
