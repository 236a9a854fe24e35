import Crypto
package import Foundation

/// Credentials for AWS Signature Version 4.
package struct S3Credentials: Sendable, Equatable {
    package var accessKeyID: String
    package var secretAccessKey: String
    /// For temporary credentials (STS); sent as `X-Amz-Security-Token`.
    package var sessionToken: String?

    package init(accessKeyID: String, secretAccessKey: String, sessionToken: String? = nil) {
        self.accessKeyID = accessKeyID
        self.secretAccessKey = secretAccessKey
        self.sessionToken = sessionToken
    }
}

/// AWS Signature Version 4 for S3: presigned URLs (query-string signing) and the `Authorization`
/// header for the server's own requests. Pure: the time is a parameter.
package struct SigV4Signer: Sendable {
    package let credentials: S3Credentials
    package let region: String
    package let service: String

    package init(credentials: S3Credentials, region: String, service: String = "s3") {
        self.credentials = credentials
        self.region = region
        self.service = service
    }

    /// The payload hash S3 accepts for a presigned URL, whose body is not known when signing.
    package static let unsignedPayload = "UNSIGNED-PAYLOAD"

    /// A presigned URL for `method` on `url`, valid for `expires` seconds from `date`.
    /// - Parameter headers: headers the caller must send with exactly these values (they are signed),
    ///   e.g. `x-amz-checksum-sha256` so that S3 rejects bytes with another hash.
    package func presign(method: String, url: URL, headers: [String: String] = [:], expires: Int, date: Date) -> URL {
        let (amzDate, day) = Self.timestamps(date)
        let scope = "\(day)/\(region)/\(service)/aws4_request"
        var allHeaders = headers.reduce(into: [String: String]()) { $0[$1.key.lowercased()] = $1.value }
        allHeaders["host"] = Self.hostHeader(url)
        let signedHeaders = allHeaders.keys.sorted().joined(separator: ";")
        var query = Self.existingQuery(url)
        query.append(("X-Amz-Algorithm", "AWS4-HMAC-SHA256"))
        query.append(("X-Amz-Credential", "\(credentials.accessKeyID)/\(scope)"))
        query.append(("X-Amz-Date", amzDate))
        query.append(("X-Amz-Expires", String(expires)))
        query.append(("X-Amz-SignedHeaders", signedHeaders))
        if let token = credentials.sessionToken { query.append(("X-Amz-Security-Token", token)) }
        let canonicalQuery = Self.canonicalQuery(query)
        let canonicalRequest = [
            method, Self.canonicalPath(url), canonicalQuery, Self.canonicalHeaders(allHeaders), signedHeaders, Self.unsignedPayload,
        ].joined(separator: "\n")
        let signature = sign(canonicalRequest: canonicalRequest, amzDate: amzDate, day: day, scope: scope)
        var components = URLComponents(url: url, resolvingAgainstBaseURL: false)!
        components.percentEncodedQuery = canonicalQuery + "&X-Amz-Signature=" + signature
        return components.url!
    }

    /// Headers to add to a request the server sends itself: `Authorization`, `X-Amz-Date`,
    /// `X-Amz-Content-SHA256` (and `X-Amz-Security-Token`).
    /// - Parameter payloadHash: hex SHA-256 of the body, or ``unsignedPayload``.
    package func authorizationHeaders(method: String, url: URL, headers: [String: String] = [:], payloadHash: String, date: Date) -> [String: String] {
        let (amzDate, day) = Self.timestamps(date)
        let scope = "\(day)/\(region)/\(service)/aws4_request"
        var allHeaders = headers.reduce(into: [String: String]()) { $0[$1.key.lowercased()] = $1.value }
        allHeaders["host"] = Self.hostHeader(url)
        allHeaders["x-amz-date"] = amzDate
        allHeaders["x-amz-content-sha256"] = payloadHash
        if let token = credentials.sessionToken { allHeaders["x-amz-security-token"] = token }
        let signedHeaders = allHeaders.keys.sorted().joined(separator: ";")
        let canonicalRequest = [
            method, Self.canonicalPath(url), Self.canonicalQuery(Self.existingQuery(url)), Self.canonicalHeaders(allHeaders), signedHeaders, payloadHash,
        ].joined(separator: "\n")
        let signature = sign(canonicalRequest: canonicalRequest, amzDate: amzDate, day: day, scope: scope)
        var result = ["X-Amz-Date": amzDate, "X-Amz-Content-SHA256": payloadHash]
        if let token = credentials.sessionToken { result["X-Amz-Security-Token"] = token }
        result["Authorization"] = "AWS4-HMAC-SHA256 Credential=\(credentials.accessKeyID)/\(scope), SignedHeaders=\(signedHeaders), Signature=\(signature)"
        return result
    }

    private func sign(canonicalRequest: String, amzDate: String, day: String, scope: String) -> String {
        let stringToSign = "AWS4-HMAC-SHA256\n\(amzDate)\n\(scope)\n\(Hex.encode(SHA256.hash(data: Array(canonicalRequest.utf8))))"
        var key = SymmetricKey(data: Array("AWS4\(credentials.secretAccessKey)".utf8))
        for part in [day, region, service, "aws4_request"] {
            key = SymmetricKey(data: Array(HMAC<SHA256>.authenticationCode(for: Array(part.utf8), using: key)))
        }
        return Hex.encode(HMAC<SHA256>.authenticationCode(for: Array(stringToSign.utf8), using: key))
    }

    // MARK: canonical forms

    static func timestamps(_ date: Date) -> (amzDate: String, day: String) {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: "UTC")!
        let c = calendar.dateComponents([.year, .month, .day, .hour, .minute, .second], from: date)
        func pad(_ v: Int?, _ w: Int) -> String {
            let s = String(v ?? 0)
            return String(repeating: "0", count: max(0, w - s.count)) + s
        }
        let day = pad(c.year, 4) + pad(c.month, 2) + pad(c.day, 2)
        return (day + "T" + pad(c.hour, 2) + pad(c.minute, 2) + pad(c.second, 2) + "Z", day)
    }

    /// `host[:port]`, the port only when it is not the scheme's default.
    static func hostHeader(_ url: URL) -> String {
        let host = url.host ?? ""
        guard let port = url.port else { return host }
        if (url.scheme == "http" && port == 80) || (url.scheme == "https" && port == 443) { return host }
        return "\(host):\(port)"
    }

    /// The path, each segment percent-encoded once (S3 does not double-encode); `/` when empty.
    static func canonicalPath(_ url: URL) -> String {
        let components = URLComponents(url: url, resolvingAgainstBaseURL: false)
        let path = components?.path ?? "/"
        if path.isEmpty { return "/" }
        return path.split(separator: "/", omittingEmptySubsequences: false).map { uriEncode(String($0)) }.joined(separator: "/")
    }

    static func existingQuery(_ url: URL) -> [(String, String)] {
        (URLComponents(url: url, resolvingAgainstBaseURL: false)?.queryItems ?? []).map { ($0.name, $0.value ?? "") }
    }

    static func canonicalQuery(_ items: [(String, String)]) -> String {
        let encoded: [(name: String, value: String)] = items.map { (uriEncode($0.0), uriEncode($0.1)) }
        let sorted = encoded.sorted { a, b in a.name == b.name ? a.value < b.value : a.name < b.name }
        return sorted.map { $0.name + "=" + $0.value }.joined(separator: "&")
    }

    static func canonicalHeaders(_ headers: [String: String]) -> String {
        headers.keys.sorted().map { name in
            let value = headers[name]!.trimmingCharacters(in: .whitespaces).split(separator: " ", omittingEmptySubsequences: true).joined(separator: " ")
            return "\(name):\(value)\n"
        }.joined()
    }

    private static let upperHex = Array("0123456789ABCDEF".utf8)
    private static let unreserved = Set(Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_.~".utf8))

    /// RFC 3986 encoding as SigV4 wants it: everything but `A-Z a-z 0-9 - _ . ~` as `%XX` (uppercase).
    static func uriEncode(_ text: String) -> String {
        var out = ""
        for byte in text.utf8 {
            if unreserved.contains(byte) {
                out.unicodeScalars.append(Unicode.Scalar(byte))
            } else {
                out += "%" + String(decoding: [upperHex[Int(byte >> 4)], upperHex[Int(byte & 0xF)]], as: UTF8.self)
            }
        }
        return out
    }
}
