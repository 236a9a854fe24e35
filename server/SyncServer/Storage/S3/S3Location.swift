package import Foundation

/// Where an S3-compatible store is: parsed from `s3://BUCKET?region=…&endpoint=…&path_style=…`.
///
/// - `region`: the signing region (`us-east-1` default; Cloudflare R2 uses `auto`).
/// - `endpoint`: the service URL; default `https://s3.<region>.amazonaws.com` (AWS). Give it for
///   MinIO, R2 (`https://<account>.r2.cloudflarestorage.com`) or any other provider.
/// - `path_style`: `true` addresses objects as `endpoint/bucket/key` (MinIO, moto, most self-hosted
///   stores); `false` as `bucket.endpoint-host/key` (AWS's default). Default: true when an endpoint
///   is given, false for AWS.
package struct S3Location: Sendable, Equatable {
    package var bucket: String
    package var region: String
    package var endpoint: URL
    package var pathStyle: Bool

    package init(bucket: String, region: String, endpoint: URL, pathStyle: Bool) {
        self.bucket = bucket
        self.region = region
        self.endpoint = endpoint
        self.pathStyle = pathStyle
    }

    /// Parses the `VAULTSYNC_BLOB_STORE` form.
    /// - Throws: ``ConfigurationError/invalid(_:)`` naming what is wrong.
    package init(spec: String) throws {
        guard let components = URLComponents(string: spec), components.scheme == "s3", let bucket = components.host, !bucket.isEmpty else {
            throw ConfigurationError.invalid("blob store '\(spec)' is not of the form s3://BUCKET?region=...&endpoint=...")
        }
        guard bucket.range(of: "^[a-z0-9][a-z0-9.-]{1,61}[a-z0-9]$", options: .regularExpression) != nil else {
            throw ConfigurationError.invalid("'\(bucket)' is not a valid S3 bucket name (3-63 lowercase letters, digits, dots, hyphens)")
        }
        var query: [String: String] = [:]
        for item in components.queryItems ?? [] { query[item.name] = item.value ?? "" }
        let known: Set<String> = ["region", "endpoint", "path_style"]
        if let unknown = query.keys.first(where: { !known.contains($0) }) {
            throw ConfigurationError.invalid("unknown S3 setting '\(unknown)' in '\(spec)'; known: region, endpoint, path_style")
        }
        let region = query["region"] ?? "us-east-1"
        let endpoint: URL
        if let text = query["endpoint"] {
            guard let url = URL(string: text), url.scheme == "http" || url.scheme == "https", url.host != nil else {
                throw ConfigurationError.invalid("S3 endpoint '\(text)' is not an http(s) URL")
            }
            endpoint = url
        } else {
            endpoint = URL(string: "https://s3.\(region).amazonaws.com")!
        }
        var pathStyle = query["endpoint"] != nil
        if let text = query["path_style"] {
            guard let value = Bool(text) else { throw ConfigurationError.invalid("path_style must be true or false, not '\(text)'") }
            pathStyle = value
        }
        self.init(bucket: bucket, region: region, endpoint: endpoint, pathStyle: pathStyle)
    }

    /// The URL of `key` (or of the bucket itself for an empty key).
    package func url(forKey key: String) -> URL {
        var base = endpoint.absoluteString
        while base.hasSuffix("/") { base.removeLast() }
        if pathStyle {
            return URL(string: base + "/" + bucket + (key.isEmpty ? "" : "/" + key))!
        }
        var components = URLComponents(url: endpoint, resolvingAgainstBaseURL: false)!
        components.host = bucket + "." + (endpoint.host ?? "")
        components.path = "/" + key
        return components.url!
    }
}
