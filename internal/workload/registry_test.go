package workload

import (
	"strings"
	"testing"
)

// A workload that declares no parameter must say so when given one: a
// list of valid names that is empty reads as a broken message.
func TestAParameterOfAWorkloadWithoutAnyIsRefusedPlainly(t *testing.T) {
	_, err := Spec{Name: "bare"}.values(map[string]string{"x": "1"})
	if err == nil || !strings.Contains(err.Error(), "takes none") || strings.Contains(err.Error(), "valid: )") {
		t.Fatalf("got %v, want a refusal that says the workload takes no parameters", err)
	}
	_, err = Spec{Name: "one", Params: []Param{{Name: "rounds"}}}.values(map[string]string{"x": "1"})
	if err == nil || !strings.Contains(err.Error(), "valid: rounds") {
		t.Fatalf("got %v, want the declared parameter named", err)
	}
}
