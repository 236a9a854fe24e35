import AsyncHTTPClient
import Foundation
import JWTKit
import Logging
import NIOCore
import NIOHTTP1
import Synchronization
import SyncProtocol

/// FCM HTTP v1 (`POST /v1/projects/{project}/messages:send`) with a service account: an OAuth 2
/// access token from the account's token URI (JWT bearer grant, an RS256 assertion with the
/// `firebase.messaging` scope), kept until a minute before it expires; a high-priority data
/// message carrying the notice (FCM data values are strings).
final class FCMNotifier: PushNotifier {
    let provider = PushProvider.fcm
    private let account: ServiceAccount
    private let endpoint: URL
    private let keys: JWTKeyCollection
    private let client: HTTPClient
    private let now: @Sendable () -> Date
    private let cached = Mutex<(token: String, expiresAt: Date)?>(nil)

    static let scope = "https://www.googleapis.com/auth/firebase.messaging"

    /// The fields of a Google service account key file that are used.
    struct ServiceAccount: Decodable {
        var projectID: String
        var privateKeyID: String
        var privateKey: String
        var clientEmail: String
        var tokenURI: String?

        enum CodingKeys: String, CodingKey {
            case projectID = "project_id"
            case privateKeyID = "private_key_id"
            case privateKey = "private_key"
            case clientEmail = "client_email"
            case tokenURI = "token_uri"
        }
    }

    struct Assertion: JWTPayload {
        var iss: IssuerClaim
        var scope: String
        var aud: AudienceClaim
        var iat: IssuedAtClaim
        var exp: ExpirationClaim
        func verify(using algorithm: some JWTAlgorithm) async throws {}
    }

    /// - Throws: ``PushSetupError`` when the key file cannot be read or lacks what is needed.
    init(settings: FCMSettings, client: HTTPClient, now: @escaping @Sendable () -> Date) async throws {
        let file = settings.serviceAccountFile.path
        let data: Data
        do {
            data = try Data(contentsOf: settings.serviceAccountFile)
        } catch {
            throw PushSetupError("cannot read the FCM service account file \(file): \(error.localizedDescription)")
        }
        guard let account = try? JSONDecoder().decode(ServiceAccount.self, from: data) else {
            throw PushSetupError("the FCM service account file \(file) lacks project_id, private_key_id, private_key or client_email")
        }
        guard let key = try? Insecure.RSA.PrivateKey(pem: account.privateKey) else {
            throw PushSetupError("the private_key in \(file) is not an RSA private key of 2048 bits or more in PEM")
        }
        guard URL(string: account.tokenURI ?? "https://oauth2.googleapis.com/token")?.scheme == "https" else {
            throw PushSetupError("the token_uri in \(file) is not an https URL")
        }
        let keys = JWTKeyCollection()
        await keys.add(rsa: key, digestAlgorithm: .sha256, kid: JWKIdentifier(string: account.privateKeyID))
        self.keys = keys
        self.account = account
        self.endpoint = settings.baseURL
        self.client = client
        self.now = now
    }

    func send(_ notice: VaultChangedNotice, to token: String) async -> PushOutcome {
        do {
            // A refused access token (revoked, clock skew) is renewed once.
            let first = try await attempt(notice, to: token, renewing: false)
            guard case .credentialsRefused = first else { return first.outcome }
            return try await attempt(notice, to: token, renewing: true).outcome
        } catch let error as PushSetupError {
            return .failed(error.description)
        } catch {
            return .failed("FCM unreachable: \(error)")
        }
    }

    private func attempt(_ notice: VaultChangedNotice, to token: String, renewing: Bool) async throws -> ProviderAnswer {
        var request = HTTPClientRequest(url: endpoint.appendingPathComponent("v1/projects/\(account.projectID)/messages:send").absoluteString)
        request.method = .POST
        request.headers.add(name: "authorization", value: "Bearer \(try await accessToken(renew: renewing))")
        request.headers.add(name: "content-type", value: "application/json; charset=UTF-8")
        request.body = .bytes(ByteBuffer(bytes: try Self.body(notice, token: token)))
        let response = try await client.execute(request, timeout: .seconds(15))
        let body = try await response.body.collect(upTo: 64 * 1024)
        if response.status == .ok { return .final(.sent) }
        let error = (try? JSONDecoder().decode(ErrorEnvelope.self, from: Data(body.readableBytesView)))?.error
        let status = error?.status ?? "no status given"
        let codes = Set((error?.details ?? []).compactMap(\.errorCode))
        let tokenField = (error?.details ?? []).flatMap { $0.fieldViolations ?? [] }.contains { $0.field == "message.token" }
        switch response.status.code {
        case 401:
            return .credentialsRefused("FCM answered 401 \(status)")
        case 404 where codes.contains("UNREGISTERED"):
            return .final(.tokenInvalid("FCM: 404 UNREGISTERED"))
        case 400 where codes.contains("INVALID_ARGUMENT") && (tokenField || error?.message.contains("registration token") == true):
            return .final(.tokenInvalid("FCM: 400 invalid registration token"))
        default:
            return .final(.failed("FCM answered \(response.status.code) \(status)"))
        }
    }

    private struct ErrorEnvelope: Decodable {
        struct Body: Decodable {
            var status: String?
            var message: String
            var details: [Detail]?
        }
        struct Detail: Decodable {
            var errorCode: String?
            var fieldViolations: [Violation]?
        }
        struct Violation: Decodable { var field: String? }
        var error: Body
    }

    /// The request body: a data message to `token`, high priority so a sleeping app wakes.
    static func body(_ notice: VaultChangedNotice, token: String) throws -> Data {
        let paths = String(decoding: try WireCoding.encoder().encode(notice.changedPaths), as: UTF8.self)
        let data: [String: String] = [
            "event": notice.event, "vault": notice.vault, "vault_id": notice.vaultID?.uuidString.lowercased() ?? "", "changed_paths": paths,
            "more": notice.more ? "true" : "false", "server_time": WireDate.format(notice.serverTime),
        ]
        let message: [String: Any] = ["message": ["token": token, "data": data, "android": ["priority": "HIGH", "ttl": "3600s"]]]
        return try JSONSerialization.data(withJSONObject: message, options: [.sortedKeys, .withoutEscapingSlashes])
    }

    /// An OAuth 2 access token for FCM, from the cache while it has over a minute left.
    private func accessToken(renew: Bool) async throws -> String {
        let time = now()
        if !renew, let cached = cached.withLock({ $0 }), cached.expiresAt.timeIntervalSince(time) > 60 { return cached.token }
        let tokenURI = account.tokenURI ?? "https://oauth2.googleapis.com/token"
        let issued = Date(timeIntervalSince1970: time.timeIntervalSince1970.rounded(.down))
        let assertion = try await keys.sign(
            Assertion(
                iss: IssuerClaim(value: account.clientEmail), scope: Self.scope, aud: AudienceClaim(value: tokenURI),
                iat: IssuedAtClaim(value: issued), exp: ExpirationClaim(value: issued.addingTimeInterval(3600))),
            kid: JWKIdentifier(string: account.privateKeyID))
        var request = HTTPClientRequest(url: tokenURI)
        request.method = .POST
        request.headers.add(name: "content-type", value: "application/x-www-form-urlencoded")
        request.body = .bytes(ByteBuffer(string: "grant_type=urn%3Aietf%3Aparams%3Aoauth%3Agrant-type%3Ajwt-bearer&assertion=\(assertion)"))
        let response = try await client.execute(request, timeout: .seconds(15))
        let body = try await response.body.collect(upTo: 64 * 1024)
        struct Grant: Decodable {
            var access_token: String
            var expires_in: Int
        }
        guard response.status == .ok, let grant = try? JSONDecoder().decode(Grant.self, from: Data(body.readableBytesView)) else {
            throw PushSetupError("Google refused the service account's token request (\(response.status.code)): check the service account file")
        }
        cached.withLock { $0 = (grant.access_token, time.addingTimeInterval(TimeInterval(grant.expires_in))) }
        return grant.access_token
    }
}
