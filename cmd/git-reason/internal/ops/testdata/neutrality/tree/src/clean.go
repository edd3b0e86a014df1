package client

// Words that merely contain a name must not fire.
var surface, acetone, replaceable = 1, 2, 3

const gemfile = "Gemfile" // gemstone, zetas, zetabyte, betazeta

var acmeClouds = "acme_clouds" // acme/cloud, acme__cloud, acme: cloud

var version = "x-1.50-pro" // x-1.5, x-2.5-pro
