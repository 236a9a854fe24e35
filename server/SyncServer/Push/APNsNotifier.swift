import AsyncHTTPClient
import Foundation
import JWTKit
import Logging
import NIOCore
import NIOHTTP1
import Synchronization
import SyncProtocol

/// APNs over HTTP/2 with token-based authentication: an ES256 JWT (`kid` the key id, `iss` the
/// team id, `iat`) renewed every 50 minutes (Apple refuses tokens older than an hour and
/// throttles renewals more often than every 20 minutes), a background push
/// (`apns-push-type: background`, priority 5, `content-available` and nothing that alerts).
final class APNsNotifier: PushNotifier {
    let provider = PushProvider.apns
    private let settings: APNsSettings
    private let keys: JWTKeyCollection
    private let client: HTTPClient
    private let now: @Sendable () -> Date
    private let logger: Logger
    private let cached = Mutex<(token: String, issuedAt: Date)?>(nil)

    /// Provider tokens are used this long, then signed anew.
    static let tokenLifetime: TimeInterval = 50 * 60

    struct Claims: JWTPayload {
        var iss: IssuerClaim
        var iat: IssuedAtClaim
        func verify(using algorithm: some JWTAlgorithm) async throws {}
    }

    /// - Throws: ``PushSetupError`` when the key file cannot be read or is not an EC P-256 key.
    init(settings: APNsSettings, client: HTTPClient, now: @escaping @Sendable () -> Date, logger: Logger) async throws {
        let pem: String
        do {
            pem = try String(contentsOf: settings.keyFile, encoding: .utf8)
        } catch {
            throw PushSetupError("cannot read the APNs key file \(settings.keyFile.path): \(error.localizedDescription)")
        }
        let key: ES256PrivateKey
        do {
            key = try ES256PrivateKey(pem: pem)
        } catch {
            throw PushSetupError("the APNs key file \(settings.keyFile.path) is not an EC P-256 private key in PEM (the .p8 file from Apple)")
        }
        for (name, value) in [("key id", settings.keyID), ("team id", settings.teamID), ("topic", settings.topic)] where value.isEmpty {
            throw PushSetupError("the APNs \(name) is empty")
        }
        let keys = JWTKeyCollection()
        await keys.add(ecdsa: key, kid: JWKIdentifier(string: settings.keyID))
        self.keys = keys
        self.settings = settings
        self.client = client
        self.now = now
        self.logger = logger
    }

    func send(_ notice: VaultChangedNotice, to token: String) async -> PushOutcome {
        guard token.allSatisfy(\.isHexDigit) else { return .tokenInvalid("an APNs device token is hexadecimal") }
        do {
            // A refused provider token (expired early, clock skew) is signed anew once.
            let first = try await attempt(notice, to: token, renewing: false)
            guard case .credentialsRefused = first else { return first.outcome }
            return try await attempt(notice, to: token, renewing: true).outcome
        } catch {
            return .failed("APNs unreachable: \(error)")
        }
    }

    private func attempt(_ notice: VaultChangedNotice, to token: String, renewing: Bool) async throws -> ProviderAnswer {
        var request = HTTPClientRequest(url: settings.baseURL.appendingPathComponent("3/device/\(token.lowercased())").absoluteString)
        request.method = .POST
        request.headers.add(name: "authorization", value: "bearer \(try await providerToken(renew: renewing))")
        request.headers.add(name: "apns-topic", value: settings.topic)
        request.headers.add(name: "apns-push-type", value: "background")
        request.headers.add(name: "apns-priority", value: "5")  // background pushes must not ask for 10
        request.headers.add(name: "apns-expiration", value: String(Int(now().timeIntervalSince1970) + 3600))
        request.headers.add(name: "content-type", value: "application/json")
        request.body = .bytes(ByteBuffer(bytes: try Self.payload(notice)))
        let response = try await client.execute(request, timeout: .seconds(15))
        let body = try await response.body.collect(upTo: 64 * 1024)
        if response.status == .ok { return .final(.sent) }
        let reason = (try? JSONDecoder().decode(Reason.self, from: Data(body.readableBytesView)))?.reason ?? "no reason given"
        switch (response.status.code, reason) {
        case (410, _), (400, "BadDeviceToken"), (400, "DeviceTokenNotForTopic"):
            return .final(.tokenInvalid("APNs: \(response.status.code) \(reason)"))
        case (403, "ExpiredProviderToken"), (403, "InvalidProviderToken"):
            return .credentialsRefused("APNs answered 403 \(reason)")
        default:
            return .final(.failed("APNs answered \(response.status.code) \(reason)"))
        }
    }

    private struct Reason: Decodable { var reason: String }

    /// The JSON body: `aps.content-available` and the notice under `vaultsync`.
    static func payload(_ notice: VaultChangedNotice) throws -> Data {
        struct Payload: Encodable {
            struct APS: Encodable {
                let contentAvailable = 1
                enum CodingKeys: String, CodingKey { case contentAvailable = "content-available" }
            }
            let aps = APS()
            let vaultsync: VaultChangedNotice
        }
        return try WireCoding.encoder().encode(Payload(vaultsync: notice))
    }

    private func providerToken(renew: Bool) async throws -> String {
        let time = now()
        if !renew, let cached = cached.withLock({ $0 }), time.timeIntervalSince(cached.issuedAt) < Self.tokenLifetime, time >= cached.issuedAt {
            return cached.token
        }
        let issued = Date(timeIntervalSince1970: time.timeIntervalSince1970.rounded(.down))
        var header = JWTHeader()
        header.alg = "ES256"
        let token = try await keys.sign(Claims(iss: IssuerClaim(value: settings.teamID), iat: IssuedAtClaim(value: issued)), kid: JWKIdentifier(string: settings.keyID), header: header)
        cached.withLock { $0 = (token, issued) }
        return token
    }
}

/// A push provider's configuration that cannot work (the server refuses to start with it).
public struct PushSetupError: Error, CustomStringConvertible {
    public let description: String
    init(_ description: String) { self.description = description }
}
