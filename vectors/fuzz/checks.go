package fuzz

import "github.com/loom-kernel/loom-conform/spec"

// Checks lists the tests of this package and the clauses each enforces.
func Checks() []spec.Check {
	t := func(id, fn string, clauses ...string) spec.Check {
		return spec.Check{ID: "vectors/" + id, Kind: spec.KindTest, Clauses: clauses, Where: "vectors/fuzz:" + fn}
	}
	return []spec.Check{
		t("fuzz-finds-deviation", "TestFuzzFindsAndShrinksDeviation", "A26.vectors.language-agnostic", "I-VECTOR-8", "I-FOLD-22"),
		t("fuzz-finds-js-deviation", "TestFuzzFindsJavaScriptDeviation", "A26.vectors.language-agnostic", "I-VECTOR-8", "I-FOLD-22"),
		t("fuzz-self-agrees", "TestFuzzReferenceAgreesWithItself", "A26.vectors.language-agnostic", "I-VECTOR-8"),
		t("fuzz-generate", "TestGenerateDeterministicAndHostile", "I-VECTOR-8", "I-FOLD-22", "I-FOLD-23"),
		t("fuzz-shrink", "TestShrinkToMinimal", "I-VECTOR-8"),
		t("fuzz-reach", "TestGeneratedCasesReachEveryRefusal", "I-COV-3"),
	}
}

// Mutants registers the broken folds `vectors fuzz` is proven against: the foreign folds of
// vectors/testdata/foreignfold (the Go one's -bug strict-integers, and deviant-fold.js), each
// with one deliberate deviation.
func Mutants() []spec.Mutant {
	return []spec.Mutant{{
		ID: "fold/vectors/foreign-js-numeric-strings", Kind: "fold",
		Defect:   "a JavaScript foreign fold that reads sequence and timestamp with Number(), taking a numeric string for an integer",
		Clauses:  []string{"I-FOLD-22"},
		CaughtBy: []string{"vectors/fuzz-finds-js-deviation"},
		Where:    "vectors/fuzz:TestFuzzFindsJavaScriptDeviation",
	}, {
		ID: "fold/vectors/foreign-strict-integers", Kind: "fold",
		Defect:   "a foreign fold that reads sequence and timestamp into integer fields, refusing integral spellings such as 0.0 and 1e3",
		Clauses:  []string{"I-FOLD-22"},
		CaughtBy: []string{"vectors/fuzz-finds-deviation"},
		Where:    "vectors/fuzz:TestFuzzFindsAndShrinksDeviation",
	}}
}
