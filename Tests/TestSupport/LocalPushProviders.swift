import Crypto
import CryptoExtras
public import Foundation
import Hummingbird
import HummingbirdHTTP2
import HummingbirdTLS
import JWTKit
import Logging
import NIOSSL
import ServiceLifecycle
import Synchronization
public import SyncProtocol
public import SyncServer
import SwiftASN1
import X509
import HTTPTypes

/// APNs and FCM as seen from the server, on a local HTTP/2-only TLS port: the real notifiers are
/// pointed here and every request is checked as Apple's and Google's documentation specifies
/// (APNs: `POST /3/device/<token>`, an ES256 provider token with `kid`, `iss` and a fresh `iat`,
/// `apns-topic`, `apns-push-type: background` with priority 5, a `content-available` payload of at
/// most 4 KiB; FCM HTTP v1: a JWT-bearer grant at the token URI signed RS256 by the service
/// account, then `POST /v1/projects/<project>/messages:send` with that bearer token and a data
/// message of string values). A request that breaks a rule is answered as the provider would and
/// recorded in ``refusals``.
public final class LocalPushProviders: Sendable {
    /// A push the provider accepted.
    public struct Delivery: Sendable, Equatable {
        public var provider: PushProvider
        public var token: String
        public var notice: VaultChangedNotice

        public init(provider: PushProvider, token: String, notice: VaultChangedNotice) {
            self.provider = provider
            self.token = token
            self.notice = notice
        }
    }

    public let port: Int
    /// The server's self-signed certificate (PEM), for ``PushSettings/extraTrustRoots``.
    public let certificateFile: URL
    public let apnsKeyFile: URL
    public let apnsKeyID = "KEY1234567"
    public let teamID = "TEAM123456"
    public let topic = "org.vaultsync.test"
    public let serviceAccountFile: URL
    public let projectID = "vaultsync-test"
    public let clientEmail = "push@vaultsync-test.iam.gserviceaccount.com"
    public let privateKeyID = "f00dfeedf00dfeedf00dfeedf00dfeedf00dfeed"

    private let folder: URL
    private let now: @Sendable () -> Date
    private let apnsKeys: JWTKeyCollection
    private let googleKeys: JWTKeyCollection
    private let state = Mutex(State())
    private let shutdown: @Sendable () async -> Void

    private struct State {
        var deliveries: [Delivery] = []
        var refusals: [String] = []
        var unregistered: Set<String> = []
        var rejectNextProviderToken = false
        var accessTokens: Set<String> = []
        var grants = 0
        var providerTokens: Set<String> = []
    }

    /// Pushes accepted so far, in order.
    public var deliveries: [Delivery] { state.withLock { $0.deliveries } }
    /// Requests refused for breaking a documented rule (a correct client makes none).
    public var refusals: [String] { state.withLock { $0.refusals } }
    /// Access tokens granted at the FCM token URI.
    public var grants: Int { state.withLock { $0.grants } }
    /// Distinct APNs provider tokens seen.
    public var providerTokensSeen: Int { state.withLock { $0.providerTokens.count } }

    /// The server's push settings, pointed here.
    public var settings: PushSettings {
        var apns = APNsSettings(keyFile: apnsKeyFile, keyID: apnsKeyID, teamID: teamID, topic: topic)
        apns.endpoint = baseURL
        var fcm = FCMSettings(serviceAccountFile: serviceAccountFile)
        fcm.endpoint = baseURL
        var settings = PushSettings(apns: apns, fcm: fcm)
        settings.extraTrustRoots = certificateFile
        return settings
    }

    public var baseURL: URL { URL(string: "https://localhost:\(port)")! }

    /// The provider now says `token` is no longer valid (APNs 410 `Unregistered`, FCM 404 `UNREGISTERED`).
    public func unregister(_ token: String) { state.withLock { _ = $0.unregistered.insert(token) } }

    /// The next request's credentials are refused once (APNs 403 `ExpiredProviderToken`, FCM 401).
    public func refuseCredentialsOnce() {
        state.withLock {
            $0.rejectNextProviderToken = true
            $0.accessTokens.removeAll()
        }
    }

    /// Waits (up to `seconds`) until `count` pushes were accepted; returns them.
    public func waitForDeliveries(_ count: Int, seconds: Double = 20) async throws -> [Delivery] {
        let deadline = ContinuousClock.now + .milliseconds(Int(seconds * 1000))
        while deliveries.count < count, ContinuousClock.now < deadline { try await Task.sleep(for: .milliseconds(20)) }
        return deliveries
    }

    /// Runs `body` against fresh providers checking times against `now`; stops them afterwards.
    public static func with<T: Sendable>(now: @escaping @Sendable () -> Date, _ body: (LocalPushProviders) async throws -> T) async throws -> T {
        let providers = try await start(now: now)
        do {
            let result = try await body(providers)
            await providers.shutdown()
            return result
        } catch {
            await providers.shutdown()
            throw error
        }
    }

    private static func start(now: @escaping @Sendable () -> Date) async throws -> LocalPushProviders {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("push-providers-\(UUID().uuidString)")
        let identity = try LocalTLSIdentity(folder: folder)
        let certificateFile = identity.certificateFile
        var tls = identity.serverTLS
        tls.applicationProtocols = ["h2"]  // HTTP/2 only, as APNs: an HTTP/1 client fails here

        // The APNs signing key (a .p8 file is a PKCS#8 P-256 key) and the service account.
        let apnsKey = P256.Signing.PrivateKey()
        let apnsKeyFile = folder.appendingPathComponent("AuthKey.p8")
        try apnsKey.pemRepresentation.write(to: apnsKeyFile, atomically: true, encoding: .utf8)
        let googleKey = try _RSA.Signing.PrivateKey(keySize: .bits2048)
        let apnsKeys = JWTKeyCollection()
        let googleKeys = JWTKeyCollection()

        let box = Mutex<LocalPushProviders?>(nil)
        let router = Router()
        router.post("**") { request, _ -> Response in
            guard let providers = box.withLock({ $0 }) else { return Response(status: .serviceUnavailable) }
            return try await providers.handle(request)
        }
        let (port, stop) = try await LocalTLSIdentity.serve(router, server: try .tls(.plaintextHTTP2(), tlsConfiguration: tls), label: "push-providers")
        let providers = LocalPushProviders(
            port: port, folder: folder, certificateFile: certificateFile, apnsKeyFile: apnsKeyFile, now: now, apnsKeys: apnsKeys,
            googleKeys: googleKeys,
            shutdown: {
                await stop()
                try? FileManager.default.removeItem(at: folder)
            })
        await apnsKeys.add(ecdsa: try ES256PublicKey(pem: apnsKey.publicKey.pemRepresentation), kid: JWKIdentifier(string: providers.apnsKeyID))
        await googleKeys.add(
            rsa: try Insecure.RSA.PublicKey(pem: googleKey.publicKey.pemRepresentation), digestAlgorithm: .sha256,
            kid: JWKIdentifier(string: providers.privateKeyID))
        let account: [String: String] = [
            "type": "service_account", "project_id": providers.projectID, "private_key_id": providers.privateKeyID,
            "private_key": googleKey.pkcs8PEMRepresentation, "client_email": providers.clientEmail,
            "token_uri": providers.baseURL.appendingPathComponent("token").absoluteString,
        ]
        try JSONSerialization.data(withJSONObject: account).write(to: providers.serviceAccountFile)
        box.withLock { $0 = providers }
        return providers
    }

    private init(
        port: Int, folder: URL, certificateFile: URL, apnsKeyFile: URL, now: @escaping @Sendable () -> Date, apnsKeys: JWTKeyCollection,
        googleKeys: JWTKeyCollection, shutdown: @escaping @Sendable () async -> Void
    ) {
        self.port = port
        self.folder = folder
        self.certificateFile = certificateFile
        self.apnsKeyFile = apnsKeyFile
        self.serviceAccountFile = folder.appendingPathComponent("service-account.json")
        self.now = now
        self.apnsKeys = apnsKeys
        self.googleKeys = googleKeys
        self.shutdown = shutdown
    }

    // MARK: requests

    private func handle(_ request: Request) async throws -> Response {
        let body = Data((try await request.body.collect(upTo: 1 << 20)).readableBytesView)
        let path = request.uri.path
        if path.hasPrefix("/3/device/") { return await apns(request, token: String(path.dropFirst("/3/device/".count)), body: body) }
        if path == "/token" { return await grant(request, body: body) }
        if path == "/v1/projects/\(projectID)/messages:send" { return await fcm(request, body: body) }
        return refuse(404, "no such endpoint \(path)", json: ["error": ["code": 404, "status": "NOT_FOUND", "message": "no such endpoint"]])
    }

    private func refuse(_ status: Int, _ why: String, json: [String: Any], record: Bool = true) -> Response {
        if record { state.withLock { $0.refusals.append(why) } }
        let data = (try? JSONSerialization.data(withJSONObject: json)) ?? Data()
        return Response(status: .init(code: status), headers: [.contentType: "application/json"], body: .init(byteBuffer: ByteBuffer(bytes: data)))
    }

    private func ok(_ json: [String: Any]) -> Response {
        refuse(200, "", json: json, record: false)
    }

    struct APNsClaims: JWTPayload {
        var iss: IssuerClaim
        var iat: IssuedAtClaim
        func verify(using algorithm: some JWTAlgorithm) async throws {}
    }

    private func apns(_ request: Request, token: String, body: Data) async -> Response {
        func reason(_ status: Int, _ reason: String, _ why: String) -> Response {
            refuse(status, "APNs \(reason): \(why)", json: ["reason": reason])
        }
        guard !token.isEmpty, token.count % 2 == 0, token.allSatisfy(\.isHexDigit) else { return reason(400, "BadDeviceToken", "token '\(token)'") }
        guard let authorization = request.headers[.authorization], authorization.hasPrefix("bearer ") else {
            return reason(403, "MissingProviderToken", "authorization '\(request.headers[.authorization] ?? "")'")
        }
        let jwt = String(authorization.dropFirst("bearer ".count))
        guard let header = Self.header(jwt), header["alg"] as? String == "ES256", header["kid"] as? String == apnsKeyID else {
            return reason(403, "InvalidProviderToken", "header \(Self.header(jwt) ?? [:])")
        }
        guard let claims = try? await apnsKeys.verify(jwt, as: APNsClaims.self), claims.iss.value == teamID else {
            return reason(403, "InvalidProviderToken", "signature or iss")
        }
        let age = now().timeIntervalSince(claims.iat.value)
        guard age < 3600, age > -60 else { return reason(403, "ExpiredProviderToken", "iat \(age) s old") }
        let rejectNow = state.withLock { state in
            state.providerTokens.insert(jwt)
            defer { state.rejectNextProviderToken = false }
            return state.rejectNextProviderToken
        }
        if rejectNow { return refuse(403, "", json: ["reason": "ExpiredProviderToken"], record: false) }
        let field = { (name: String) in HTTPField.Name(name).flatMap { request.headers[$0] } }
        guard field("apns-topic") == topic else { return reason(400, "BadTopic", "apns-topic '\(field("apns-topic") ?? "")'") }
        guard field("apns-push-type") == "background" else { return reason(400, "InvalidPushType", "apns-push-type '\(field("apns-push-type") ?? "")'") }
        guard field("apns-priority") == "5" else { return reason(400, "BadPriority", "a background push needs priority 5, not '\(field("apns-priority") ?? "")'") }
        if let expiration = field("apns-expiration"), Int(expiration) == nil { return reason(400, "BadExpirationDate", expiration) }
        guard body.count <= 4096 else { return reason(413, "PayloadTooLarge", "\(body.count) bytes") }
        guard let payload = try? JSONSerialization.jsonObject(with: body) as? [String: Any], let aps = payload["aps"] as? [String: Any],
            aps.count == 1, aps["content-available"] as? Int == 1,
            let custom = payload["vaultsync"], let data = try? JSONSerialization.data(withJSONObject: custom),
            let notice = try? WireCoding.decoder().decode(VaultChangedNotice.self, from: data)
        else { return reason(400, "PayloadEmpty", "a background push carries aps.content-available = 1 only, and the notice: \(String(decoding: body, as: UTF8.self))") }
        if state.withLock({ $0.unregistered.contains(token) }) {
            return refuse(410, "", json: ["reason": "Unregistered", "timestamp": Int(now().timeIntervalSince1970 * 1000)], record: false)
        }
        state.withLock { $0.deliveries.append(Delivery(provider: .apns, token: token, notice: notice)) }
        var response = ok([:])
        response.headers[HTTPField.Name("apns-id")!] = UUID().uuidString
        return response
    }

    struct GrantAssertion: JWTPayload {
        var iss: IssuerClaim
        var scope: String
        var aud: AudienceClaim
        var iat: IssuedAtClaim
        var exp: ExpirationClaim
        func verify(using algorithm: some JWTAlgorithm) async throws {}
    }

    private func grant(_ request: Request, body: Data) async -> Response {
        func invalid(_ why: String) -> Response {
            refuse(400, "token URI: \(why)", json: ["error": "invalid_grant", "error_description": why])
        }
        guard request.headers[.contentType]?.hasPrefix("application/x-www-form-urlencoded") == true else {
            return invalid("content-type '\(request.headers[.contentType] ?? "")'")
        }
        var form: [String: String] = [:]
        for pair in String(decoding: body, as: UTF8.self).split(separator: "&") {
            let parts = pair.split(separator: "=", maxSplits: 1).map { String($0).removingPercentEncoding ?? String($0) }
            if parts.count == 2 { form[parts[0]] = parts[1] }
        }
        guard form["grant_type"] == "urn:ietf:params:oauth:grant-type:jwt-bearer", let assertion = form["assertion"] else {
            return invalid("grant_type '\(form["grant_type"] ?? "")' or no assertion")
        }
        guard let header = Self.header(assertion), header["alg"] as? String == "RS256", header["kid"] as? String == privateKeyID else {
            return invalid("assertion header \(Self.header(assertion) ?? [:])")
        }
        guard let claims = try? await googleKeys.verify(assertion, as: GrantAssertion.self) else { return invalid("assertion signature") }
        let time = now()
        guard claims.iss.value == clientEmail, claims.aud.value == [baseURL.appendingPathComponent("token").absoluteString],
            claims.scope.split(separator: " ").contains("https://www.googleapis.com/auth/firebase.messaging"),
            claims.iat.value <= time.addingTimeInterval(60), claims.exp.value > time,
            claims.exp.value.timeIntervalSince(claims.iat.value) <= 3600
        else { return invalid("assertion claims iss \(claims.iss.value) aud \(claims.aud.value) scope \(claims.scope)") }
        let token = "ya29.\(UUID().uuidString)"
        state.withLock {
            $0.accessTokens.insert(token)
            $0.grants += 1
        }
        return ok(["access_token": token, "expires_in": 3599, "token_type": "Bearer"])
    }

    private func fcm(_ request: Request, body: Data) async -> Response {
        func invalid(_ why: String, field: String = "message") -> Response {
            refuse(400, "FCM: \(why)", json: ["error": ["code": 400, "status": "INVALID_ARGUMENT", "message": why, "details": [
                ["@type": "type.googleapis.com/google.rpc.BadRequest", "fieldViolations": [["field": field, "description": why]]],
            ]]])
        }
        let bearer = request.headers[.authorization].flatMap { $0.hasPrefix("Bearer ") ? String($0.dropFirst(7)) : nil }
        guard let bearer, state.withLock({ $0.accessTokens.contains(bearer) }) else {
            return refuse(401, "", json: ["error": ["code": 401, "status": "UNAUTHENTICATED", "message": "Request had invalid authentication credentials."]], record: false)
        }
        guard request.headers[.contentType]?.hasPrefix("application/json") == true else { return invalid("content-type") }
        guard let json = try? JSONSerialization.jsonObject(with: body) as? [String: Any], let message = json["message"] as? [String: Any] else {
            return invalid("no message")
        }
        guard let token = message["token"] as? String, !token.isEmpty else { return invalid("Recipient of the message is not set.") }
        guard let data = message["data"] as? [String: Any], data.values.allSatisfy({ $0 is String }) else {
            return invalid("data values must be strings", field: "message.data")
        }
        let strings = data.compactMapValues { $0 as? String }
        guard strings.keys.allSatisfy({ !$0.hasPrefix("google") && !$0.hasPrefix("gcm") && $0 != "from" && $0 != "message_type" }) else {
            return invalid("reserved data key", field: "message.data")
        }
        guard strings.reduce(0, { $0 + $1.key.utf8.count + $1.value.utf8.count }) <= 4096 else { return invalid("Message too big") }
        if let android = message["android"] as? [String: Any], let priority = android["priority"] as? String, !["NORMAL", "HIGH"].contains(priority) {
            return invalid("android.priority '\(priority)'", field: "message.android.priority")
        }
        guard strings["event"] == "vault-changed", let vault = strings["vault"], let pathsText = strings["changed_paths"],
            let paths = try? JSONDecoder().decode([String].self, from: Data(pathsText.utf8)), let time = strings["server_time"].flatMap(WireDate.parse)
        else { return invalid("not a vault-changed notice: \(strings)", field: "message.data") }
        if state.withLock({ $0.unregistered.contains(token) }) {
            return refuse(404, "", json: ["error": ["code": 404, "status": "NOT_FOUND", "message": "Requested entity was not found.", "details": [
                ["@type": "type.googleapis.com/google.firebase.fcm.v1.FcmError", "errorCode": "UNREGISTERED"],
            ]]], record: false)
        }
        let notice = VaultChangedNotice(vault: vault, vaultID: strings["vault_id"].flatMap(UUID.init(uuidString:)), changedPaths: paths, more: strings["more"] == "true", serverTime: time)
        state.withLock { $0.deliveries.append(Delivery(provider: .fcm, token: token, notice: notice)) }
        return ok(["name": "projects/\(projectID)/messages/\(UUID().uuidString)"])
    }

    /// A JWT's header, decoded.
    private static func header(_ jwt: String) -> [String: Any]? {
        guard let part = jwt.split(separator: ".").first else { return nil }
        var base64 = part.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        base64 += String(repeating: "=", count: (4 - base64.count % 4) % 4)
        guard let data = Data(base64Encoded: base64) else { return nil }
        return try? JSONSerialization.jsonObject(with: data) as? [String: Any]
    }
}
