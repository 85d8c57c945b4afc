# loom-conform — see README.md. Every target works from a clean clone.
GO        ?= go
PKGS      ?= ./...
JUNIT     ?= test-results/junit.xml
FUZZTIME  ?= 30s
export TESTCONTAINERS_RYUK_DISABLED ?= true

.PHONY: build test ci bench fuzz lint docs clean

build: ## build the CLI into bin/
	$(GO) build -o bin/loom-conform ./cmd/loom-conform

test: ## run the whole suite through gotestsum (JUnit XML to $(JUNIT)); starts a throwaway PostgreSQL unless LOOM_CONFORM_POSTGRES_DSN is set
	@mkdir -p $(dir $(JUNIT))
	scripts/with-services.sh $(GO) tool gotestsum --format testname --junitfile $(JUNIT) -- -timeout 15m $(PKGS)

ci: lint test build ## what CI runs

bench: ## benchmarks; targets are reported as ratios measured in one run
	scripts/with-services.sh $(GO) test -run '^$$' -bench . -benchmem -benchtime 1x $(PKGS)

fuzz: ## bounded fuzzing and long property runs (FUZZTIME per target)
	scripts/fuzz.sh $(FUZZTIME)

lint: ## gofmt, go vet and actionlint
	@out=$$(gofmt -l $$(git ls-files '*.go')); if [ -n "$$out" ]; then echo "gofmt would change:"; echo "$$out"; exit 1; fi
	$(GO) vet $(PKGS)
	$(GO) tool actionlint .github/workflows/ci.yml

docs: ## regenerate generated documentation
	$(GO) run ./cmd/loom-conform spec --interpretations > docs/interpretations.md

clean:
	rm -rf bin test-results
