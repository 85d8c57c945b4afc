# loom-conform — see README.md. Every target works from a clean clone.
GO        ?= go
PKGS      ?= ./...
JUNIT     ?= test-results/junit.xml
FUZZTIME  ?= 30s
BENCHTIME ?= 3x
export TESTCONTAINERS_RYUK_DISABLED ?= true
# Pure-Go build everywhere (modernc SQLite, pgx): the static bridge image shares the test build cache.
export CGO_ENABLED ?= 0

.PHONY: build test ci bench fuzz lint docs vectors gen-vectors certify deploysim clean

build: ## build the CLI into bin/
	$(GO) build -o bin/loom-conform ./cmd/loom-conform

test: ## run the whole suite through gotestsum (JUnit XML to $(JUNIT)); starts a throwaway PostgreSQL unless LOOM_CONFORM_POSTGRES_DSN is set
	@mkdir -p $(dir $(JUNIT))
	scripts/with-services.sh $(GO) tool gotestsum --format testname --junitfile $(JUNIT) -- -timeout 15m $(PKGS)

ci: lint test build ## what CI runs

bench: ## benchmarks; targets are reported as ratios measured in one run
	scripts/with-services.sh $(GO) test -run '^$$' -bench . -benchmem -benchtime $(BENCHTIME) -timeout 60m $(PKGS)

fuzz: ## bounded fuzzing and long property runs (FUZZTIME per target)
	scripts/fuzz.sh $(FUZZTIME)

lint: ## gofmt, go vet and actionlint
	@out=$$(gofmt -l $$(git ls-files '*.go')); if [ -n "$$out" ]; then echo "gofmt would change:"; echo "$$out"; exit 1; fi
	$(GO) vet $(PKGS)
	$(GO) tool actionlint .github/workflows/ci.yml

docs: ## regenerate generated documentation (interpretations, event catalogue)
	$(GO) run ./cmd/loom-conform spec --interpretations > docs/interpretations.md
	$(GO) test ./reference/fold -run TestEventsDocCurrent -update >/dev/null

certify: ## the main job: certify the embedded SQLite store
	$(GO) run ./cmd/loom-conform certify all --builtin sqlite

vectors: ## run the fold vectors against the reference fold
	$(GO) run ./cmd/loom-conform vectors

gen-vectors: ## regenerate the generated fold vectors (review the diff)
	$(GO) generate ./vectors

SEEDS ?= 1000
deploysim: ## long deploy-simulation sweep: SEEDS seeds per scenario (make deploysim SEEDS=10000)
	$(GO) run ./cmd/loom-conform deploysim --seeds $(SEEDS) --junit test-results/deploysim.xml

clean:
	rm -rf bin test-results
