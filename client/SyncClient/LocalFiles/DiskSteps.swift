public import Foundation

/// One step by which a sync changes its device's disk. Each is where a crash can stop the engine,
/// and where a power cut separates what was made durable from what was not.
public enum DiskStep: Sendable, Equatable {
    /// A new file in the staging folder, fsynced when `durable`.
    case stage(URL, durable: Bool)
    /// A staged file renamed over (or to) a vault file.
    case rename(URL, to: URL)
    /// A vault file removed.
    case remove(URL)
    /// Everything written to the vault's file system so far made durable (`syncfs`).
    case flush
    /// A `sync.db` transaction committed (SQLite's WAL is fsynced at each commit).
    case commit
}

/// Watches the steps of ``DiskStep`` before each happens; throwing stops that step. The product
/// passes ``DiskSteps/none``; the simulation stops the engine at any step (a crash) and undoes
/// what was not durable yet (a power cut).
public protocol DiskSteps: Sendable {
    func before(_ step: DiskStep) throws
}

/// The product's: every step goes ahead.
public struct NoDiskSteps: DiskSteps {
    public init() {}
    public func before(_ step: DiskStep) throws {}
}

extension DiskSteps where Self == NoDiskSteps {
    public static var none: NoDiskSteps { NoDiskSteps() }
}
