package srcimports

import (
	"slices"
	"testing"
)

func TestOfAndDir(t *testing.T) {
	src := []byte("package p\n\nimport (\n\t\"time\"\n\tx \"github.com/aws/aws-sdk-go-v2/service/ecs\"\n)\n\nvar _ = time.Now\nvar _ = x.New\n")
	got, err := Of("p.go", src)
	if want := []string{"time", "github.com/aws/aws-sdk-go-v2/service/ecs"}; err != nil || !slices.Equal(got, want) {
		t.Errorf("Of(p.go) = %v, %v; want %v", got, err, want)
	}
	if _, err := Of("bad.go", []byte("not go")); err == nil {
		t.Error("Of(bad.go) = nil error, want a parse error")
	}
	files, err := Dir(".")
	if err != nil || len(files) != 2 || !slices.Contains(files["srcimports.go"], "go/parser") {
		t.Errorf("Dir(.) = %v, %v; want the two non-test files, srcimports.go importing go/parser", files, err)
	}
}
