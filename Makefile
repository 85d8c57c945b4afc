# loom-conform — see README.md. Every target works from a clean clone.
GO        ?= go
PKGS      ?= ./...
JUNIT     ?= test-results/junit.xml
FUZZTIME  ?= 30s
BENCHTIME ?= 3x
PERF_BIG  ?= 1000000000
FUZZRATE  ?= 20s
# Proof records of the last `make test` (one fresh directory per run, so a cached test result,
# which records nothing, never stands in for a run): read by `spec --coverage --proofs`.
PROOFS    ?= test-results/proofs
export TESTCONTAINERS_RYUK_DISABLED ?= true
# Pure-Go build everywhere (modernc SQLite, pgx): the static bridge image shares the test build cache.
export CGO_ENABLED ?= 0

.PHONY: build test coverage ci bench perf-doc perf-cli fuzz fuzz-self lint docs vectors gen-vectors goldens certify fitness g2-proof explore-seeds seed-rate seed-rate-bridge clean deploysim stability release release-snapshot

build: ## build the CLI into bin/: loom-conform and loom-conform-full, which it runs for the verbs it does not serve
	$(GO) build -o bin/ ./cmd/loom-conform ./cmd/loom-conform-full

test: ## run the whole suite through gotestsum (JUnit XML to $(JUNIT)); starts a throwaway PostgreSQL unless LOOM_CONFORM_POSTGRES_DSN is set; with CI=true fails on any skip but a kit's capability verdict
	@mkdir -p $(dir $(JUNIT)) && rm -rf $(PROOFS) && mkdir -p $(PROOFS)/run-$$(date +%s%N)
	@GO=$(GO) scripts/compile-tests.sh $(PKGS)
	LOOM_CONFORM_PROOFS=$$(ls -d $(abspath $(PROOFS))/run-*) scripts/with-services.sh $(GO) tool gotestsum --format testname --junitfile $(JUNIT) -- -timeout 30m $(PKGS)
	@if [ "$${CI:-}" = "true" ]; then $(GO) run ./internal/ciskips $(JUNIT); fi
	@$(MAKE) --no-print-directory coverage

coverage: ## linked and proven clause coverage from the proof records of the last `make test`; fails when a registered mutant has no recorded kill or spec MUST proven < 90 %
	$(GO) run ./cmd/loom-conform-full spec --coverage --strict --proofs "$$(ls -d $(PROOFS)/run-* | tail -1)" > test-results/coverage.txt || { tail -60 test-results/coverage.txt; exit 1; }
	@sed -n '/^mutants:/,$$p' test-results/coverage.txt | head -40

ci: lint test fitness build ## what CI runs

fitness: ## run every fitness gate (spec §10); JSON and JUnit reports in test-results/
	@mkdir -p test-results
	scripts/with-services.sh $(GO) run ./cmd/loom-conform-full fitness --json test-results/fitness.json --junit test-results/fitness.xml

g2-proof: ## run the G2 ratio gate 20 times on a slowed kernel and 20 times on the real one (needs ≥ 19 right verdicts each)
	LOOM_CONFORM_G2_PROOF_RUNS=20 $(GO) test -count=1 -run TestG2GateCatchesSlowUnwiredPath -v -timeout 30m ./fitness

bench: ## benchmarks; targets are reported as ratios measured in one run
	scripts/with-services.sh $(GO) test -run '^$$' -bench . -benchmem -benchtime $(BENCHTIME) -timeout 60m $(PKGS)
	cd bench && $(GO) test -run '^$$' -bench . -benchtime 1x -timeout 60m ./...

perf-doc: ## measure the fold's figures against goccy/go-json and sonic (module bench/) and write docs/performance.md; PERF_BIG bytes folded for peak RSS
	@mkdir -p test-results
	scripts/fuzz-rate.sh $(FUZZRATE) > test-results/fuzz-rate.md
	cd bench && LOOM_PERF_DOC=$(abspath docs/performance.md) LOOM_PERF_BIG=$(PERF_BIG) LOOM_PERF_FUZZ=$(abspath test-results/fuzz-rate.md) $(GO) test -count=1 -run TestWritePerformanceDoc -timeout 60m .

perf-cli: ## measure the command line's start-up against a hello-world Go program and `fold`'s stages against encoding/json (module bench/), and rewrite that section of docs/performance.md
	cd bench && LOOM_PERF_DOC=$(abspath docs/performance.md) LOOM_PERF_CLI=1 $(GO) test -count=1 -run '^TestWriteCLISection$$' -timeout 30m .

STABILITY_RUNS ?= 20
STABILITY_LOAD ?= 16
stability: build ## certify each built-in store and the reference kernel (as served, and slowed by 400 µs a request) STABILITY_RUNS times under scripts/load.sh STABILITY_LOAD; report verdict flips (goal 0) and the slowest checks in docs/performance.md
	@mkdir -p test-results
	LOOM_STABILITY_LOAD="scripts/load.sh $(STABILITY_LOAD) on $$(nproc) cores" scripts/with-services.sh scripts/load.sh $(STABILITY_LOAD) -- \
		sh -c 'cd bench && $(GO) run ./cmd/stability -bin ../bin/loom-conform -runs $(STABILITY_RUNS) -out ../test-results/stability.md -doc ../docs/performance.md'

explore-seeds: ## the explorations over many seeds: every reference store (memory, SQLite, PostgreSQL) 20 seeds a seam, the reference kernel 30 (the default suite runs 5 and 8)
	LOOM_EXPLORE_SEEDS=20 scripts/with-services.sh $(GO) test -count=1 -run 'TestExploreSeeds' ./kits ./reference/stores/sqlite ./reference/stores/postgres
	LOOM_EXPLORE_SEEDS=30 $(GO) test -count=1 -run '^TestExploreReferencePasses$$' ./kits/kernelkit

seed-rate: ## how often each concurrency check catches its broken store or dispatcher over 100 seeds (fails below 99 %)
	LOOM_KITS_SEED_RATE=100 $(GO) test -tags seedrate -run '^(TestSeedDependence|TestExploreRaceRate)$$' -v -timeout 60m ./kits/broken/... | grep -E 'seed rate|explore rate|FAIL|^ok'

seed-rate-bridge: ## the same, the stores served behind the store bridge over loopback HTTP (the route of a store in another language), for the round-trip-window stores
	LOOM_KITS_SEED_RATE=100 LOOM_KITS_SEED_RATE_BRIDGE=1 LOOM_KITS_SEED_RATE_RUN='roundtrip$$' $(GO) test -tags seedrate -run '^TestSeedDependence$$' -v -timeout 60m ./kits/broken/ | grep -E 'seed rate|FAIL|^ok'

fuzz: ## bounded fuzzing and long property runs (FUZZTIME per target)
	scripts/fuzz.sh $(FUZZTIME)

lint: ## gofmt, go mod tidy (no diff), go vet, actionlint (the workflows and, through them, action.yml), the link checker over README and docs/, and the generator-reach table's reasons (bench TestGeneratorReach)
	@out=$$(gofmt -l $$(git ls-files '*.go')); if [ -n "$$out" ]; then echo "gofmt would change:"; echo "$$out"; exit 1; fi
	@$(GO) mod tidy -diff || { echo "go.mod/go.sum are not tidy: run go mod tidy"; exit 1; }
	$(GO) vet $(PKGS)
	$(GO) tool actionlint .github/workflows/*.yml
	$(GO) test -count=1 -run 'TestDocLinks' ./internal/doclinks
	cd bench && LOOM_GEN_REACH=1 $(GO) test -count=1 -run '^TestGeneratorReach$$' .

docs: ## regenerate generated documentation (interpretations, event catalogue, fitness gates, the HTML report's screenshots: needs Chromium; the report matrix example: starts a throwaway PostgreSQL)
	$(GO) run ./cmd/loom-conform-full spec --interpretations > docs/interpretations.md
	$(GO) run ./cmd/loom-conform-full fitness --list --markdown > docs/fitness.md
	$(GO) test ./reference/fold -run TestEventsDocCurrent -update >/dev/null
	CI=true $(GO) test -count=1 ./certify -run '^TestHTMLReportInBrowser$$' -update-screenshots >/dev/null
	CI=true scripts/with-services.sh $(GO) test -count=1 ./cmd/loom-conform-full -run '^TestMatrixDocExample$$' -update-matrix-doc >/dev/null

certify: ## the main job: certify the embedded SQLite store
	$(GO) run ./cmd/loom-conform-full certify all --builtin sqlite

vectors: ## run the fold vectors against the reference fold
	$(GO) run ./cmd/loom-conform-full vectors

goldens: ## re-run the golden-log corpus (replay, fixture, G2) against the reference kernel
	$(GO) run ./cmd/loom-conform-full goldens check

gen-vectors: ## regenerate the generated fold vectors (review the diff)
	$(GO) generate ./vectors

fuzz-self: build ## vectors fuzz of the reference against itself over the protocol: 100 000 logs must all agree
	bin/loom-conform vectors fuzz --exec 'bin/loom-conform vectors --serve' --count 100000 --seed 1
SEEDS ?= 1000
deploysim: ## long deploy-simulation sweep: SEEDS seeds per scenario (make deploysim SEEDS=10000)
	$(GO) run ./cmd/loom-conform-full deploysim --seeds $(SEEDS) --junit test-results/deploysim.xml

# The release this source heads for (manifest/version.go); a build that is not a release
# reports it with -devel.
NEXT_RELEASE := $(shell sed -n 's/^const HarnessVersion = "\(.*\)"$$/\1/p' manifest/version.go)

release: ## build release VERSION (make release VERSION=0.1.0) after checking its tag, CHANGELOG section and manifest.HarnessVersion: static binaries for linux, darwin and windows on amd64 and arm64, SHA256SUMS and the FROM scratch image, in dist/VERSION (docs/releasing.md)
	@test -n "$(VERSION)" || { echo "make release VERSION=X.Y.Z (docs/releasing.md)" >&2; exit 2; }
	IMAGE=1 scripts/release.sh $(VERSION)

release-snapshot: ## the release set without the checks, as a dry run: dist/$(NEXT_RELEASE)-snapshot (VERSION=… to choose; IMAGE=1 for the image too)
	IMAGE=$(IMAGE) scripts/release.sh --snapshot $(or $(VERSION),$(NEXT_RELEASE)-snapshot)

clean:
	rm -rf bin dist test-results
