public import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Failures of the server as a whole: it cannot be reached, the connection broke, or it answers
/// that it cannot serve now (a proxy's 502/504, 503 during a database outage). Local changes stay
/// pending and the next sync tries again; nothing about any file was wrong.
public enum Unreachable {
    /// Whether `error` is such a failure. Every transport failure is, except a URL the client
    /// cannot use and a server whose TLS identity cannot be trusted: those need the user.
    public static func matches(_ error: any Error) -> Bool {
        if let error = error as? URLError { return !needsTheUser.contains(error.code) }
        if let error = error as? SyncAPIError { return [502, 503, 504].contains(error.status) }
        return false
    }

    /// One line for people: what happened, without an error domain dump.
    public static func describe(_ error: any Error) -> String {
        switch error {
        case let error as URLError:
            "cannot reach the server: \(describe(error.code))"
        case let error as SyncAPIError:
            if case .server = error { "the server cannot serve now (\(error.serverMessage))" } else { "the server cannot serve now (HTTP \(error.status))" }
        default:
            "\(error)"
        }
    }

    private static let needsTheUser: Set<URLError.Code> = [
        .badURL, .unsupportedURL, .secureConnectionFailed, .serverCertificateUntrusted, .serverCertificateHasBadDate, .serverCertificateNotYetValid,
        .serverCertificateHasUnknownRoot, .clientCertificateRejected, .clientCertificateRequired, .userAuthenticationRequired,
    ]

    private static func describe(_ code: URLError.Code) -> String {
        switch code {
        case .cannotConnectToHost: "connection refused"
        case .timedOut: "timed out"
        case .cannotFindHost, .dnsLookupFailed: "unknown host"
        case .networkConnectionLost, .badServerResponse, .cannotParseResponse, .zeroByteResource:
            "the connection was cut off"
        case .notConnectedToInternet: "no network"
        case .secureConnectionFailed: "the secure connection failed"
        default: "the connection failed (network error \(code.rawValue))"
        }
    }
}
