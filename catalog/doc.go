// Package catalog gathers every check of the project — tests, properties, fuzz targets, kit checks
// and vectors — from the packages that own them, so `loom-conform spec --coverage` can print the
// clause × check matrix. Its tests refuse a check that names an unknown clause, and a test-kind
// check whose test function does not exist.
//
//	cov := spec.ComputeCoverage(catalog.Checks())
package catalog
