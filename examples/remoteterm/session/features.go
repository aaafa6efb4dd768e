package session

import "github.com/skewtest/skewtest/examples/remoteterm/release"

// Feature keys a daemon may advertise in serverInfo.features.
const (
	// FeatureServerRequests: the daemon sends serverRequest and serverRequestResolved and
	// accepts serverResponse.
	FeatureServerRequests = "serverRequests"
	// FeatureAttention: the daemon accepts presence and publishes attentionEvent. Advertised
	// only when the attention system is composed.
	FeatureAttention = "attention"
	// FeatureReviewLabels: the daemon labels reviews. Advertised only by builds with the
	// reviewLabels switch (a compatible change: a feature key no released client knows).
	FeatureReviewLabels = "reviewLabels"
)

// Features is serverInfo.features: an open record of feature keys. A key that is absent or
// false is not advertised.
type Features map[string]bool

// Has reports whether key is advertised.
func (f Features) Has(key string) bool { return f[key] }

// advertisedFeatures is what a daemon of rel advertises. Keys it does not compose are left
// out rather than sent as false, as the Rennet daemon does.
func advertisedFeatures(rel release.Features) Features {
	f := Features{}
	if rel.ServerRequests {
		f[FeatureServerRequests] = true
	}
	if rel.Attention {
		f[FeatureAttention] = true
	}
	if rel.ReviewLabels {
		f[FeatureReviewLabels] = true
	}
	return f
}
