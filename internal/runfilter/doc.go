// Package runfilter is --run, the regular expression every verb selects its checks, vectors,
// goldens or gates by, and the one answer when it selects nothing: bad input (exit 2) naming the
// pattern and some of the ids it could have selected (I-CERT-32), never a run that judged nothing
// and passed.
//
//	re, err := runfilter.Compile(pattern)            // nil for ""
//	if err := runfilter.Selects(re, "check", ids); err != nil {
//		return badInput("certify: %v", err)           // --run "x" selects no check (of 154: …)
//	}
package runfilter
