public import Foundation
public import SyncServer
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

#if canImport(Glibc)
import Glibc
#endif

/// A real S3-compatible server for the test run: `moto_server` (PyPI `moto[server]`), started once
/// on a free loopback port and stopped at exit. moto does not check signatures; the SigV4 signer is
/// proven by its own test vectors, the end-to-end flow here. There is no silent skip: without moto
/// the S3 tests fail, saying how to install it.
public enum TestMoto {
    /// The endpoint, once moto answers.
    private static let ready = Task<URL, any Error> {
        let port = try freePort()
        let executable = try locate()
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = ["-H", "127.0.0.1", "-p", String(port)]
        let log = FileManager.default.temporaryDirectory.appendingPathComponent("vaultsync-moto-\(getpid()).log")
        _ = FileManager.default.createFile(atPath: log.path, contents: nil)
        let handle = try FileHandle(forWritingTo: log)
        process.standardOutput = handle
        process.standardError = handle
        try process.run()
        motoPID = process.processIdentifier
        // SIGKILL: moto's SIGTERM handler only raises SystemExit in its main thread, and the
        // threads serving kept-alive connections keep the process running. It holds nothing to flush.
        atexit {
            if TestMoto.motoPID > 0 { kill(TestMoto.motoPID, SIGKILL) }
        }
        // Its log goes with it: it matters only while moto runs (`didNotStart` quotes it).
        ExitWatchdog.run("kill -9 \(process.processIdentifier) 2>/dev/null; rm -f '\(log.path)'", alsoEndsWith: process.processIdentifier)
        let endpoint = URL(string: "http://127.0.0.1:\(port)")!
        for _ in 0..<200 {
            if let (_, response) = try? await URLSession.shared.data(from: endpoint), (response as? HTTPURLResponse) != nil { return endpoint }
            try await Task.sleep(for: .milliseconds(50))
        }
        throw TestMotoError.didNotStart(log: (try? String(contentsOf: log, encoding: .utf8)) ?? "")
    }

    nonisolated(unsafe) private static var motoPID: Int32 = 0

    /// Every object key in `bucket` (moto answers unsigned listings).
    public static func objectKeys(bucket: String) async throws -> Set<String> {
        var keys: Set<String> = []
        var token: String?
        repeat {
            var components = URLComponents(url: try await endpoint().appendingPathComponent(bucket), resolvingAgainstBaseURL: false)!
            components.queryItems = [URLQueryItem(name: "list-type", value: "2")] + (token.map { [URLQueryItem(name: "continuation-token", value: $0)] } ?? [])
            let (data, _) = try await URLSession.shared.data(from: components.url!)
            let xml = String(decoding: data, as: UTF8.self)
            keys.formUnion(elements("Key", in: xml))
            token = elements("NextContinuationToken", in: xml).first
        } while token != nil
        return keys
    }

    /// Replaces an object's bytes, or deletes it with nil, behind the server's back: the damage a
    /// failing store or a careless hand does.
    public static func replaceObject(bucket: String, key: String, with bytes: Data?) async throws {
        var request = URLRequest(url: try await endpoint().appendingPathComponent(bucket).appendingPathComponent(key))
        request.httpMethod = bytes == nil ? "DELETE" : "PUT"
        request.httpBody = bytes
        let (_, response) = try await URLSession.shared.data(for: credentialed(request))
        guard let status = (response as? HTTPURLResponse)?.statusCode, (200..<300).contains(status) else { throw TestMotoError.refused(key) }
    }

    /// The bytes of an object.
    public static func object(bucket: String, key: String) async throws -> Data {
        try await URLSession.shared.data(for: credentialed(URLRequest(url: try await endpoint().appendingPathComponent(bucket).appendingPathComponent(key)))).0
    }

    /// moto refuses object calls without credentials, and does not check their signature.
    private static func credentialed(_ request: URLRequest) -> URLRequest {
        var request = request
        request.setValue("AWS4-HMAC-SHA256 Credential=testing/20261126/us-east-1/s3/aws4_request, SignedHeaders=host, Signature=0", forHTTPHeaderField: "Authorization")
        return request
    }

    /// The upload ids of the bucket's multipart uploads in progress (ListMultipartUploads).
    public static func multipartUploads(bucket: String) async throws -> [String] {
        let (data, _) = try await URLSession.shared.data(from: URL(string: try await endpoint().appendingPathComponent(bucket).absoluteString + "?uploads")!)
        return elements("UploadId", in: String(decoding: data, as: UTF8.self))
    }

    private static func elements(_ name: String, in xml: String) -> [String] {
        xml.components(separatedBy: "<\(name)>").dropFirst().compactMap { $0.components(separatedBy: "</\(name)>").first }
    }

    /// The moto endpoint, starting it on first use.
    public static func endpoint() async throws -> URL { try await ready.value }

    private static func locate() throws -> String {
        let path = ProcessInfo.processInfo.environment["PATH"] ?? ""
        for dir in path.split(separator: ":") where FileManager.default.isExecutableFile(atPath: "\(dir)/moto_server") {
            return "\(dir)/moto_server"
        }
        throw TestMotoError.notInstalled
    }

    /// A TCP port on loopback that nothing listens on now.
    public static func freePort() throws -> Int {
        let reserved = try reservePort()
        close(reserved.descriptor)
        return reserved.port
    }

    /// A free loopback port, held (bound, not listening) by the returned descriptor until it is
    /// closed: the kernel gives it to nothing else meanwhile. For a process that starts long after
    /// its port is chosen (a load balancer whose address its servers are told first).
    public static func reservePort() throws -> (port: Int, descriptor: Int32) {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = 0
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { pointer -> Int32 in
                guard bind(fd, pointer, length) == 0 else { return -1 }
                return getsockname(fd, pointer, &length)
            }
        }
        guard bound == 0 else {
            close(fd)
            throw TestMotoError.noFreePort
        }
        return (Int(UInt16(bigEndian: address.sin_port)), fd)
    }
}

public enum TestMotoError: Error, CustomStringConvertible {
    case notInstalled
    case noFreePort
    case didNotStart(log: String)
    case refused(String)

    public var description: String {
        switch self {
        case .notInstalled: "moto_server is not on PATH: pip install 'moto[server]' (infra/test.sh does)"
        case .noFreePort: "no free loopback port for moto"
        case .didNotStart(let log): "moto_server did not answer: \(log.suffix(2000))"
        case .refused(let key): "moto refused a change to \(key)"
        }
    }
}

/// The blob stores the contract tests run against.
public enum BlobBackend: String, CaseIterable, Sendable, CustomStringConvertible {
    case file
    case s3Presigned
    case s3Proxied

    public var description: String { rawValue }

    /// A configuration change that selects this backend (a fresh bucket for the S3 ones).
    public func configuration() async throws -> @Sendable (inout ServerConfiguration) -> Void {
        switch self {
        case .file:
            return { _ in }
        case .s3Presigned, .s3Proxied:
            let endpoint = try await TestMoto.endpoint()
            let bucket = "vaultsync-\(UUID().uuidString.prefix(8).lowercased())"
            let access: BlobAccess = self == .s3Proxied ? .proxied : .presigned
            return { configuration in
                configuration.blobStore = "s3://\(bucket)?region=us-east-1&endpoint=\(endpoint.absoluteString)&path_style=true"
                configuration.blobAccess = access
                configuration.s3AccessKeyID = "testing"
                configuration.s3SecretAccessKey = "testing"
                configuration.s3CreateBucket = true
            }
        }
    }
}
