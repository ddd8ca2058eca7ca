package telemetry

import (
	"fmt"
	"os"
	"slices"
	"strings"
)

// The exporter names of OTEL_TRACES_EXPORTER and OTEL_METRICS_EXPORTER this
// package knows.
const (
	exporterOTLP       = "otlp"
	exporterConsole    = "console"
	exporterPrometheus = "prometheus"
	exporterNone       = "none"
)

// plan is what the OTEL_* environment asks for.
type plan struct {
	// disabled is OTEL_SDK_DISABLED=true: no spans at all, no OTLP export.
	disabled bool
	// traces lists the span exporters: otlp, console, or none.
	traces []string
	// metricsOTLP adds an OTLP exporter to the always-on Prometheus one.
	metricsOTLP bool
}

// CheckEnv checks the OTEL_* variables as Setup reads them, setting up
// nothing: doctor fails on a value that would stop the commands that
// export telemetry.
func CheckEnv() error {
	_, err := planFromEnv(os.Getenv)
	return err
}

// planFromEnv reads the standard variables through getenv. OTLP is the
// default exporter of a signal only when an OTLP endpoint is set for it, so
// that a bare environment exports nothing rather than retrying against a
// collector on localhost:4318 that is not there.
func planFromEnv(getenv func(string) string) (plan, error) {
	var p plan
	if strings.EqualFold(strings.TrimSpace(getenv("OTEL_SDK_DISABLED")), "true") {
		p.disabled = true
		return p, nil
	}

	traces, err := exporterList(getenv, "OTEL_TRACES_EXPORTER", exporterOTLP, exporterConsole, exporterNone)
	if err != nil {
		return plan{}, err
	}
	if traces == nil && endpointSet(getenv, "TRACES") {
		traces = []string{exporterOTLP}
	}
	metrics, err := exporterList(getenv, "OTEL_METRICS_EXPORTER", exporterOTLP, exporterPrometheus, exporterNone)
	if err != nil {
		return plan{}, err
	}
	if metrics == nil && endpointSet(getenv, "METRICS") {
		metrics = []string{exporterOTLP}
	}

	p.traces = slices.DeleteFunc(traces, func(e string) bool { return e == exporterNone })
	p.metricsOTLP = slices.Contains(metrics, exporterOTLP)
	if slices.Contains(p.traces, exporterOTLP) {
		if err := checkProtocol(getenv, "TRACES"); err != nil {
			return plan{}, err
		}
	}
	if p.metricsOTLP {
		if err := checkProtocol(getenv, "METRICS"); err != nil {
			return plan{}, err
		}
	}
	return p, nil
}

// exporterList parses a comma-separated exporter variable; nil when unset.
// An unknown name is an error: a typo must not silently disable export.
func exporterList(getenv func(string) string, name string, known ...string) ([]string, error) {
	v := strings.TrimSpace(getenv(name))
	if v == "" {
		return nil, nil
	}
	var list []string
	for e := range strings.SplitSeq(v, ",") {
		e = strings.ToLower(strings.TrimSpace(e))
		if !slices.Contains(known, e) {
			return nil, fmt.Errorf("%s: unknown exporter %q (want %s)", name, e, strings.Join(known, ", "))
		}
		if !slices.Contains(list, e) {
			list = append(list, e)
		}
	}
	return list, nil
}

// endpointSet reports an OTLP endpoint for the signal, general or its own.
func endpointSet(getenv func(string) string, signal string) bool {
	return strings.TrimSpace(getenv("OTEL_EXPORTER_OTLP_ENDPOINT")) != "" ||
		strings.TrimSpace(getenv("OTEL_EXPORTER_OTLP_"+signal+"_ENDPOINT")) != ""
}

// checkProtocol refuses OTLP protocols other than HTTP with protobuf, the
// only one built in: exporting nothing while the operator expects gRPC
// would be found out only when the traces are missing.
func checkProtocol(getenv func(string) string, signal string) error {
	for _, name := range []string{"OTEL_EXPORTER_OTLP_" + signal + "_PROTOCOL", "OTEL_EXPORTER_OTLP_PROTOCOL"} {
		switch v := strings.TrimSpace(getenv(name)); v {
		case "":
			continue
		case "http/protobuf":
			return nil
		default:
			return fmt.Errorf("%s=%s is not supported: analyticsbot exports OTLP over http/protobuf only", name, v)
		}
	}
	return nil
}
