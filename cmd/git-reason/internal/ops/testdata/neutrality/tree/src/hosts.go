package client

var host = "acme-cloud.example"

var client = AcmeCloud{}
