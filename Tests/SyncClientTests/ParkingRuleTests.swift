import Foundation
@testable import SyncClient
import SyncProtocol
import Testing

/// Which failures park a file: only the file's own, never a condition of the server or network.
@Suite struct ParkingRuleTests {
    func server(_ status: Int, _ code: ErrorCode) -> SyncAPIError {
        .server(status: status, error: ErrorBody(code: code, message: "…"))
    }

    @Test func serverWideFailuresDoNotCountTowardsParking() {
        let serverWide: [any Error] = [
            server(500, .internalError), server(503, .unavailable), server(507, .storageUnavailable), server(429, .quotaExceeded),
            server(401, .unauthorized), SyncAPIError.unexpectedResponse(status: 502, body: "<html>bad gateway</html>"),
            URLError(.timedOut), URLError(.networkConnectionLost), URLError(.cannotConnectToHost), URLError(.badServerResponse),
        ]
        for error in serverWide { #expect(!SyncReport.belongsToFile(error), "\(error)") }
        for code: ErrorCode in [.quotaExceeded, .storageUnavailable, .unavailable] { #expect(!SyncReport.belongsToFile(code)) }
    }

    @Test func aFilesOwnFailuresCount() {
        let own: [any Error] = [server(400, .invalidPath), server(400, .contentMismatch), server(413, .fileTooLarge), SyncFileError.corruptDownload]
        for error in own { #expect(SyncReport.belongsToFile(error), "\(error)") }
        for code: ErrorCode in [.invalidPath, .contentMismatch, .pathCaseConflict, .uploadMissing] { #expect(SyncReport.belongsToFile(code)) }
    }
}
