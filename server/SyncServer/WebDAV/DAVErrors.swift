import Foundation
import HTTPTypes
import Hummingbird
import Logging
import NIOCore
import SyncProtocol

/// A WebDAV answer decided by the WebDAV layer itself (a precondition, a missing parent).
struct DAVFailure: Error, Equatable {
    let status: HTTPResponse.Status
    let message: String
    /// The precondition or postcondition that failed (RFC 4918 §16), such as
    /// `propfind-finite-depth`: then the body is a `DAV:error` naming it, with the message beside.
    var condition: String? = nil
}

/// Every WebDAV failure becomes its answer here, in one place: WebDAV statuses where the protocol
/// has its own (507 for a full quota, 412 for a failed precondition, 409 for a missing parent or
/// a name taken in another letter case), the API's status otherwise, and always a plain-text body
/// a person can read in their client's error message.
enum DAVErrors {
    static let realm = "Basic realm=\"VaultSync WebDAV (your email and an app password)\", charset=\"UTF-8\""

    static func response(_ error: any Error, logger: Logger) -> Response {
        if let failure = error as? DAVFailure {
            guard let condition = failure.condition else { return text(failure.status, failure.message) }
            let xml = "<?xml version=\"1.0\" encoding=\"utf-8\"?>\n<D:error xmlns:D=\"DAV:\"><D:\(condition)/><D:responsedescription>"
                + Markup.escape(failure.message) + "</D:responsedescription></D:error>\n"
            return Response(status: failure.status, headers: [.contentType: "application/xml; charset=utf-8"], body: .init(byteBuffer: ByteBuffer(string: xml)))
        }
        guard let service = ServiceError.from(error) else {
            RequestFailure.note(error, logger: logger)
            return text(.internalServerError, "the server could not do this; try again, and tell its operator if it keeps failing")
        }
        let (status, body) = service.wire
        if status.code >= 500 { RequestFailure.note(error, logger: logger) }
        switch service {
        case .unauthorized, .invalidCredentials:
            var response = text(.unauthorized, "sign in with your email and an app password ('vaultsync app-password create NAME', or the web app's devices page)")
            response.headers[.wwwAuthenticate] = realm
            return response
        case .quotaExceeded(let message, _):
            return text(insufficientStorage, message)
        case .server(let failure):
            var response = text(failure.isOutOfSpace ? insufficientStorage : status, body.message)
            response.headers[.retryAfter] = String(failure.retryAfterSeconds)
            return response
        case .tooManyRequests(_, let seconds):
            var response = text(status, body.message)
            response.headers[.retryAfter] = String(seconds)
            return response
        default:
            return text(status, body.message)
        }
    }

    /// The error for a file the write's rule turned down (``WritePlan/Rejected``): the API's for a
    /// name (a bad path, one taken in another letter case), WebDAV's own status otherwise.
    static func failure(_ rejected: WritePlan.Rejected) -> any Error {
        switch rejected.why {
        case .caseTaken(let existing): ServiceError.pathCaseConflict(path: rejected.path, existing: existing)
        case .newName(let error): ServiceError.invalidPath(error)
        case .overQuota(let reason): DAVFailure(status: insufficientStorage, message: reason)
        default: DAVFailure(status: .conflict, message: rejected.fileError.message)
        }
    }

    static let insufficientStorage = HTTPResponse.Status(code: 507, reasonPhrase: "Insufficient Storage")

    static func text(_ status: HTTPResponse.Status, _ message: String) -> Response {
        Response(status: status, headers: [.contentType: "text/plain; charset=utf-8"], body: .init(byteBuffer: ByteBuffer(string: message + "\n")))
    }
}
