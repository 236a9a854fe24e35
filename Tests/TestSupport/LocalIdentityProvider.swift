public import Crypto
import SwiftASN1
import X509
import CryptoExtras
public import Foundation
import Hummingbird
import HummingbirdCore
import HummingbirdTLS
import JWTKit
import Logging
import NIOSSL
import ServiceLifecycle
import Synchronization
public import SyncServer

/// An OpenID Connect issuer on a local HTTPS port, as an identity provider on the internet is
/// seen by the server: a discovery document at `/.well-known/openid-configuration` and a JWKS at
/// `/jwks`, with real RS256 and ES256 keys this test support makes. It mints ID tokens, honest
/// and forged, and can rotate its RSA key. For the web app's sign-in it also has the
/// authorization-code flow as OpenID Connect Core §3.1, RFC 6749 §4.1 and RFC 7636 document it
/// (and as Sign in with Apple's "Generate and validate tokens" does: `response_mode=form_post`,
/// a client secret that is an ES256 JWT of the team): `/authorize` signs in whoever
/// ``willSignIn(subject:email:at:)`` names, with no page of its own, and `/token` checks every
/// field a provider checks before it answers the ID token.
public final class LocalIdentityProvider: Sendable {
    public let issuer: URL
    /// Its self-signed certificate (PEM), for ``ServerConfiguration/identityTrustRoots``.
    public let certificateFile: URL
    public let clientID = "org.vaultsync.test"

    private struct Keys {
        var rsaID = "rsa-1"
        var rsa = try! _RSA.Signing.PrivateKey(keySize: .bits2048)
        let ec = P256.Signing.PrivateKey()
        let ecID = "ec-1"
        var jwksFetches = 0
        var person: (subject: String, email: String?, at: Date)?
        var clientAuth = ClientAuth.none
        var grants: [String: Grant] = [:]
        var tokenRequests: [[String: String]] = []
    }

    /// How the token endpoint wants the client to prove itself.
    public enum ClientAuth: Sendable {
        case none
        case secret(String)
        /// Sign in with Apple's: an ES256 JWT signed by the team's key.
        case appleKey(publicKey: P256.Signing.PublicKey, teamID: String, keyID: String)
    }

    /// A code handed out and what it was asked with.
    struct Grant {
        let clientID: String
        let redirect: String
        let challenge: String
        let nonce: String?
        let subject: String
        let email: String?
        let at: Date
    }

    /// The person the next authorization signs in, and when their ID token is issued.
    public func willSignIn(subject: String, email: String?, at: Date) {
        keys.withLock { $0.person = (subject, email, at) }
    }

    /// What the token endpoint requires of the client (`clientID`).
    public func expectClient(_ auth: ClientAuth) {
        keys.withLock { $0.clientAuth = auth }
    }

    /// The form fields of every request to the token endpoint, oldest first.
    public var tokenRequests: [[String: String]] { keys.withLock { $0.tokenRequests } }

    func personSigningIn() -> (subject: String, email: String?, at: Date)? { keys.withLock { $0.person } }
    func addGrant(_ code: String, _ grant: Grant) { keys.withLock { $0.grants[code] = grant } }
    func expectedClientAuth() -> ClientAuth { keys.withLock { $0.clientAuth } }

    /// Records a token request; the grant its code names, which it spends (a code works once).
    func recordTokenRequest(_ form: [String: String]) -> Grant? {
        keys.withLock { keys in
            keys.tokenRequests.append(form)
            return form["code"].flatMap { keys.grants.removeValue(forKey: $0) }
        }
    }

    private let keys = Mutex(Keys())
    private let shutdown: @Sendable () async -> Void

    /// How many times the JWKS was fetched.
    public var jwksFetches: Int { keys.withLock { $0.jwksFetches } }

    /// The server's settings for this issuer, named `name`.
    public func settings(name: String = "local") -> IdentityProviderSettings {
        IdentityProviderSettings(name: name, issuer: issuer, clientIDs: [clientID, "org.vaultsync.other-app"])
    }

    /// Replaces the RSA signing key (new key id): tokens signed with the old one no longer verify.
    public func rotateRSAKey() {
        keys.withLock {
            $0.rsa = try! _RSA.Signing.PrivateKey(keySize: .bits2048)
            $0.rsaID = "rsa-\(UUID().uuidString.prefix(6))"
        }
    }

    /// The claims of an ID token; nil fields are left out.
    public struct Claims: Codable, Sendable {
        public var iss: String?
        public var sub: String?
        public var aud: String?
        public var exp: Int?
        public var iat: Int?
        public var nonce: String?
        public var email: String?
        /// `email_verified`: a boolean, or as Apple also sends it, a string.
        public var emailVerified: Verified?

        enum CodingKeys: String, CodingKey {
            case iss, sub, aud, exp, iat, nonce, email
            case emailVerified = "email_verified"
        }
    }

    /// `email_verified` as a JSON boolean or string.
    public enum Verified: Codable, Sendable {
        case bool(Bool)
        case string(String)

        public init(from decoder: any Decoder) throws {
            let container = try decoder.singleValueContainer()
            if let value = try? container.decode(Bool.self) {
                self = .bool(value)
            } else {
                self = .string(try container.decode(String.self))
            }
        }

        public func encode(to encoder: any Encoder) throws {
            var container = encoder.singleValueContainer()
            switch self {
            case .bool(let value): try container.encode(value)
            case .string(let value): try container.encode(value)
            }
        }
    }

    /// Honest claims for `subject`, issued now (by `now`) and valid for 10 minutes; an email given
    /// is one the provider verified.
    public func claims(subject: String, email: String?, now: Date, nonce: String? = nil) -> Claims {
        Claims(
            iss: issuer.absoluteString, sub: subject, aud: clientID, exp: Int(now.timeIntervalSince1970) + 600, iat: Int(now.timeIntervalSince1970),
            nonce: nonce, email: email, emailVerified: email == nil ? nil : .bool(true))
    }

    public enum Signature: Sendable {
        case rs256, es256
        /// Signed with a key the issuer does not publish (same key id as its RSA key).
        case unknownKey
        /// `alg: none`, no signature.
        case none
        /// HS256 with the issuer's RSA public key (PEM) as the HMAC secret.
        case hs256WithPublicKey
    }

    /// An ID token with `claims`, signed as `signature` says.
    public func token(_ claims: Claims, signature: Signature = .rs256) async throws -> String {
        let (rsa, rsaID, ec, ecID) = keys.withLock { ($0.rsa, $0.rsaID, $0.ec, $0.ecID) }
        let collection = JWTKeyCollection()
        switch signature {
        case .rs256:
            await collection.add(rsa: try Insecure.RSA.PrivateKey(pem: rsa.pemRepresentation), digestAlgorithm: .sha256, kid: JWKIdentifier(string: rsaID))
            return try await collection.sign(SignedClaims(claims), kid: JWKIdentifier(string: rsaID))
        case .es256:
            await collection.add(ecdsa: try ES256PrivateKey(pem: ec.pemRepresentation), kid: JWKIdentifier(string: ecID))
            return try await collection.sign(SignedClaims(claims), kid: JWKIdentifier(string: ecID))
        case .unknownKey:
            let other = try _RSA.Signing.PrivateKey(keySize: .bits2048)
            await collection.add(rsa: try Insecure.RSA.PrivateKey(pem: other.pemRepresentation), digestAlgorithm: .sha256, kid: JWKIdentifier(string: "stranger"))
            return try await collection.sign(SignedClaims(claims), kid: JWKIdentifier(string: "stranger"))
        case .none:
            return Self.encode(["alg": "none", "kid": rsaID, "typ": "JWT"]) + "." + Self.encode(claims) + "."
        case .hs256WithPublicKey:
            let signingInput = Self.encode(["alg": "HS256", "kid": rsaID, "typ": "JWT"]) + "." + Self.encode(claims)
            let mac = HMAC<SHA256>.authenticationCode(for: Data(signingInput.utf8), using: SymmetricKey(data: Data(rsa.publicKey.pemRepresentation.utf8)))
            return signingInput + "." + Self.base64URL(Data(mac))
        }
    }

    /// `token` with its payload replaced by `claims` (the signature left as it was).
    public static func tampered(_ token: String, with claims: Claims) -> String {
        let parts = token.split(separator: ".", omittingEmptySubsequences: false)
        return parts[0] + "." + encode(claims) + "." + parts[2]
    }

    private static func encode(_ value: some Encodable) -> String {
        base64URL(try! JSONEncoder().encode(value))
    }

    private static func base64URL(_ data: Data) -> String {
        data.base64EncodedString().replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_").replacingOccurrences(of: "=", with: "")
    }

    private func jwks() throws -> Data {
        let (rsa, rsaID, ec, ecID) = keys.withLock {
            $0.jwksFetches += 1
            return ($0.rsa, $0.rsaID, $0.ec, $0.ecID)
        }
        let (modulus, exponent) = try Insecure.RSA.PublicKey(pem: rsa.publicKey.pemRepresentation).getKeyPrimitives()
        let ecParameters = try ES256PublicKey(pem: ec.publicKey.pemRepresentation).parameters!
        let keys: [[String: String]] = [
            ["kty": "RSA", "kid": rsaID, "alg": "RS256", "use": "sig", "n": Self.base64URL(modulus), "e": Self.base64URL(exponent)],
            ["kty": "EC", "kid": ecID, "alg": "ES256", "use": "sig", "crv": "P-256", "x": ecParameters.x, "y": ecParameters.y],
        ]
        return try JSONSerialization.data(withJSONObject: ["keys": keys])
    }

    /// Runs `body` against a fresh issuer; stops it afterwards.
    public static func with<T: Sendable>(_ body: (LocalIdentityProvider) async throws -> T) async throws -> T {
        let provider = try await start()
        do {
            let result = try await body(provider)
            await provider.shutdown()
            return result
        } catch {
            await provider.shutdown()
            throw error
        }
    }

    private static func start() async throws -> LocalIdentityProvider {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("identity-provider-\(UUID().uuidString)")
        let identity = try LocalTLSIdentity(folder: folder)
        let box = Mutex<LocalIdentityProvider?>(nil)
        let router = Router()
        router.get(".well-known/openid-configuration") { _, _ -> Response in
            guard let provider = box.withLock({ $0 }) else { return Response(status: .serviceUnavailable) }
            let document: [String: Any] = [
                "issuer": provider.issuer.absoluteString, "jwks_uri": provider.issuer.appendingPathComponent("jwks").absoluteString,
                "authorization_endpoint": provider.issuer.appendingPathComponent("authorize").absoluteString,
                "token_endpoint": provider.issuer.appendingPathComponent("token").absoluteString,
                "id_token_signing_alg_values_supported": ["RS256", "ES256"], "response_types_supported": ["id_token"], "subject_types_supported": ["public"],
            ]
            return Self.json(try JSONSerialization.data(withJSONObject: document))
        }
        router.get("jwks") { _, _ -> Response in
            guard let provider = box.withLock({ $0 }) else { return Response(status: .serviceUnavailable) }
            return Self.json(try provider.jwks())
        }
        router.get("authorize") { request, _ -> Response in
            guard let provider = box.withLock({ $0 }) else { return Response(status: .serviceUnavailable) }
            return provider.authorize(Dictionary(request.uri.queryParameters.map { (String($0.key), String($0.value)) }) { first, _ in first })
        }
        router.post("token") { request, _ -> Response in
            guard let provider = box.withLock({ $0 }) else { return Response(status: .serviceUnavailable) }
            let body = try await request.body.collect(upTo: 1 << 16)
            return try await provider.token(Self.formFields(String(buffer: body)))
        }
        let (port, stop) = try await LocalTLSIdentity.serve(router, server: try .tls(.http1(), tlsConfiguration: identity.serverTLS), label: "identity-provider")
        let provider = LocalIdentityProvider(issuer: URL(string: "https://localhost:\(port)")!, certificateFile: identity.certificateFile) {
            await stop()
            try? FileManager.default.removeItem(at: folder)
        }
        box.withLock { $0 = provider }
        return provider
    }

    private static func json(_ data: Data) -> Response {
        Response(status: .ok, headers: [.contentType: "application/json"], body: .init(byteBuffer: ByteBuffer(bytes: data)))
    }

    private init(issuer: URL, certificateFile: URL, shutdown: @escaping @Sendable () async -> Void) {
        self.issuer = issuer
        self.certificateFile = certificateFile
        self.shutdown = shutdown
    }
}

/// ``LocalIdentityProvider/Claims`` as jwt-kit signs them.
private struct SignedClaims: JWTPayload {
    let claims: LocalIdentityProvider.Claims
    func encode(to encoder: any Encoder) throws { try claims.encode(to: encoder) }
    init(_ claims: LocalIdentityProvider.Claims) { self.claims = claims }
    init(from decoder: any Decoder) throws { claims = try LocalIdentityProvider.Claims(from: decoder) }
    func verify(using algorithm: some JWTAlgorithm) async throws {}
}

/// A self-signed TLS identity for "localhost", for the local stand-ins of internet services.
struct LocalTLSIdentity {
    let certificateFile: URL
    let serverTLS: TLSConfiguration

    init(folder: URL) throws {
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let tlsKey = P256.Signing.PrivateKey()
        let name = try DistinguishedName { CommonName("localhost") }
        let certificate = try Certificate(
            version: .v3, serialNumber: Certificate.SerialNumber(), publicKey: .init(tlsKey.publicKey),
            notValidBefore: Date().addingTimeInterval(-3600), notValidAfter: Date().addingTimeInterval(86400), issuer: name, subject: name,
            signatureAlgorithm: .ecdsaWithSHA256,
            extensions: try Certificate.Extensions {
                Critical(BasicConstraints.isCertificateAuthority(maxPathLength: nil))
                SubjectAlternativeNames([.dnsName("localhost")])
            },
            issuerPrivateKey: .init(tlsKey))
        let certificatePEM = try certificate.serializeAsPEM().pemString
        certificateFile = folder.appendingPathComponent("ca.pem")
        try certificatePEM.write(to: certificateFile, atomically: true, encoding: .utf8)
        serverTLS = TLSConfiguration.makeServerConfiguration(
            certificateChain: [.certificate(try NIOSSLCertificate(bytes: Array(certificatePEM.utf8), format: .pem))],
            privateKey: .privateKey(try NIOSSLPrivateKey(bytes: Array(tlsKey.pemRepresentation.utf8), format: .pem)))
    }

    /// Serves `router` with `server` on a free loopback port; returns the port and what stops it.
    static func serve(_ router: Router<BasicRequestContext>, server: HTTPServerBuilder, label: String) async throws -> (port: Int, stop: @Sendable () async -> Void) {
        let (ports, portSink) = AsyncStream.makeStream(of: Int.self)
        let logger = Logger(label: label, factory: { _ in SwiftLogNoOpLogHandler() })
        let app = Application(
            router: router, server: server, configuration: .init(address: .hostname("127.0.0.1", port: 0)),
            onServerRunning: { channel in portSink.yield(channel.localAddress?.port ?? 0) }, logger: logger)
        let group = ServiceGroup(services: [app], logger: logger)
        let task = Task {
            defer { portSink.finish() }
            try await group.run()
        }
        var iterator = ports.makeAsyncIterator()
        guard let port = await iterator.next() else {
            try await task.value
            throw TestServerError.stoppedBeforeListening
        }
        return (port, {
            await group.triggerGracefulShutdown()
            _ = await task.result
        })
    }
}
