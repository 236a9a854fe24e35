public import Foundation
public import SyncProtocol
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Blob transfers: uploads (whole, a range, from memory) and downloads (into memory, or resumably into a file).
extension SyncAPI {
    //
    // Blob URLs on the server's own origin (the built-in store, or a server in proxied mode) also
    // get the session's bearer token; URLs elsewhere (S3) never do.

    /// PUTs `data` to an upload URL with the headers the push answer listed.
    public func uploadBlob(_ data: Data, to url: URL, headers: [String: String] = [:], session: VaultSession? = nil) async throws {
        var request = blobRequest("PUT", url, headers: headers, session: session)
        request.httpBody = data
        let (body, response) = try await transport.send(request)
        try check(response, body)
    }

    /// PUTs a file's bytes to an upload URL, streamed from disk.
    public func uploadBlob(file: URL, to url: URL, headers: [String: String] = [:], session: VaultSession? = nil) async throws {
        let request = blobRequest("PUT", url, headers: headers, session: session)
        let (body, response) = try await transport.upload(request, fromFile: file)
        try check(response, body)
    }

    /// PUTs the bytes of `file` in `range` (one part of a large file), streamed from disk.
    public func uploadBlob(file: URL, range: Range<Int64>, to url: URL, headers: [String: String] = [:], session: VaultSession? = nil) async throws {
        let request = blobRequest("PUT", url, headers: headers, session: session)
        let (body, response) = try await transport.upload(request, fromFile: file, range: range)
        try check(response, body)
    }

    /// GETs a download URL into memory (small files).
    public func downloadBlob(from url: URL, session: VaultSession? = nil) async throws -> Data {
        let (body, response) = try await transport.send(blobRequest("GET", url, session: session))
        try check(response, body)
        return body
    }

    /// GETs a download URL into `partial`, continuing what it already holds (`Range: bytes=N-`):
    /// an interrupted download resumes where it stopped. A server that answers the whole blob
    /// instead (`200`) starts the file over; one that has nothing after N (`416`, the partial is
    /// whole or longer) too. The caller checks the result's hash.
    public func downloadBlob(from url: URL, into partial: URL, session: VaultSession? = nil) async throws {
        let have = (try? FileManager.default.attributesOfItem(atPath: partial.path)[.size] as? NSNumber)?.int64Value ?? 0
        let headers = have > 0 ? ["Range": "bytes=\(have)-"] : [:]
        let (response, body) = try await transport.download(blobRequest("GET", url, headers: headers, session: session), into: partial, resumingAt: have)
        let resumedAt = response.value(forHTTPHeaderField: "Content-Range").flatMap { Self.rangeStart($0) }
        if have > 0, response.statusCode == 416 || (response.statusCode == 206 && resumedAt != have) {
            try? FileManager.default.removeItem(at: partial)
            return try await downloadBlob(from: url, into: partial, session: session)
        }
        guard (200..<300).contains(response.statusCode) else {
            try check(response, body)
            throw SyncAPIError.unexpectedResponse(status: response.statusCode, body: "")
        }
    }

    /// N of `Content-Range: bytes N-M/T`.
    static func rangeStart(_ header: String) -> Int64? {
        guard header.hasPrefix("bytes ") else { return nil }
        return Int64(header.dropFirst("bytes ".count).prefix { $0 != "-" })
    }

    /// GETs a download URL into a temporary file; the caller moves or removes it.
    public func downloadBlobToFile(from url: URL, session: VaultSession? = nil) async throws -> URL {
        let (file, response) = try await transport.download(blobRequest("GET", url, session: session))
        guard (200..<300).contains(response.statusCode) else {
            let body = (try? Data(contentsOf: file)) ?? Data()
            try? FileManager.default.removeItem(at: file)
            try check(response, body)
            throw SyncAPIError.unexpectedResponse(status: response.statusCode, body: "")
        }
        return file
    }

    /// `GET /vault/events` as a long poll: other devices' changes after `cursor`, waiting up to
    /// `wait` seconds for one (then an `idle` event); changes wholly inside the folders `skipping`
    /// names (`Archive/`, a plain vault's) are not among them.
    public func events(_ session: VaultSession, cursor: String, wait: Int, skipping: [String] = []) async throws -> VaultEvent {
        let query = [URLQueryItem(name: "cursor", value: cursor), URLQueryItem(name: "wait", value: String(wait))] + skipping.map { URLQueryItem(name: "skip", value: $0) }
        return try await call("GET", "vault/events", query: query, body: Optional<SignupRequest>.none, headers: headers(session))
    }

    /// The headers of a vault request (for the change feed's WebSocket, which does not go
    /// through ``call``).
    func vaultHeaders(_ session: VaultSession) -> [String: String] {
        headers(session).merging([SyncHeader.protocolVersion: String(ProtocolVersion.current)]) { $1 }
    }
}
