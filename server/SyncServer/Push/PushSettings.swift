import AsyncHTTPClient
public import Foundation
import NIOSSL

/// Silent pushes to devices that hold no change-feed connection. Without a provider configured,
/// nothing is sent (and the server says so at start).
public struct PushSettings: Sendable {
    /// Apple Push Notification service, token-based (a `.p8` key).
    public var apns: APNsSettings?
    /// Firebase Cloud Messaging HTTP v1 (a service account key).
    public var fcm: FCMSettings?
    /// At most one push per device and vault in this time; changes meanwhile go in one trailing
    /// push (default 5 s).
    public var interval: Duration = .seconds(5)
    /// A PEM file of certificates trusted for the providers' endpoints besides the system's (a
    /// TLS-inspecting proxy, a relay, a test server).
    public var extraTrustRoots: URL?

    public init(apns: APNsSettings? = nil, fcm: FCMSettings? = nil) {
        self.apns = apns
        self.fcm = fcm
    }

    /// Whether any provider is configured.
    public var isEnabled: Bool { apns != nil || fcm != nil }
}

/// APNs token-based authentication and the app it pushes to.
public struct APNsSettings: Sendable {
    /// The signing key from the Apple developer account (`AuthKey_<key id>.p8`, PEM).
    public var keyFile: URL
    /// Its 10-character key id.
    public var keyID: String
    /// The 10-character team id.
    public var teamID: String
    /// The app's bundle id (`apns-topic`).
    public var topic: String
    /// Production, or the sandbox that development builds of the app register with.
    public var environment: Environment = .production
    /// Another base URL instead of Apple's (a relay; tests).
    public var endpoint: URL?

    public enum Environment: String, Sendable, CaseIterable {
        case production, sandbox
    }

    public init(keyFile: URL, keyID: String, teamID: String, topic: String, environment: Environment = .production) {
        self.keyFile = keyFile
        self.keyID = keyID
        self.teamID = teamID
        self.topic = topic
        self.environment = environment
    }

    /// Where requests go.
    var baseURL: URL {
        endpoint ?? URL(string: environment == .production ? "https://api.push.apple.com" : "https://api.sandbox.push.apple.com")!
    }
}

/// FCM HTTP v1 through a Google service account.
public struct FCMSettings: Sendable {
    /// The service account's JSON key (project id, client email, private key, token URI).
    public var serviceAccountFile: URL
    /// Another base URL instead of `https://fcm.googleapis.com` (tests).
    public var endpoint: URL?

    public init(serviceAccountFile: URL) {
        self.serviceAccountFile = serviceAccountFile
    }

    var baseURL: URL { endpoint ?? URL(string: "https://fcm.googleapis.com")! }
}

extension PushSettings {
    /// The HTTP client the notifiers share: HTTP/2 where the provider offers it (APNs requires
    /// it), trusting the system's certificates and ``extraTrustRoots``.
    func makeHTTPClient() -> HTTPClient {
        var tls = TLSConfiguration.makeClientConfiguration()
        if let roots = extraTrustRoots { tls.additionalTrustRoots = [.file(roots.path)] }
        return HTTPClient(eventLoopGroupProvider: .singleton, configuration: HTTPClient.Configuration(tlsConfiguration: tls))
    }
}
