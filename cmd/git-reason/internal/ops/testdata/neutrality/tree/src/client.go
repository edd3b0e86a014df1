package client

// AcmeCloudClient talks to the service.
type AcmeCloudClient struct{}

const ACME_CLOUD_REGION = "acme-cloud-east"

func newZeta() string { return "Acme Cloud" }

var acme_cloud_client = useX15Pro()

func useX15Pro() int { ace := 1; return ace } // x-1.5-pro, X_1_5_PRO
