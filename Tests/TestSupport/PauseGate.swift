public import SyncServer

/// Holds a server at the ``PausePoints`` a test arms and lets it go when told, so that a race
/// runs in the order the test chooses: `arm`, start the work, `reached`, do the other side,
/// `release`.
public actor PauseGate {
    private var armed: Set<PausePoints.Point> = []
    private var arrived: Set<PausePoints.Point> = []
    private var held: [PausePoints.Point: CheckedContinuation<Void, Never>] = [:]
    private var watchers: [PausePoints.Point: [CheckedContinuation<Void, Never>]] = [:]

    public init() {}

    /// The points to give the server's configuration.
    public nonisolated var points: PausePoints { PausePoints { point in await self.arrive(point) } }

    /// The next arrival at `point` waits for ``release(_:)``.
    public func arm(_ point: PausePoints.Point) { armed.insert(point) }

    /// Returns once something waits at `point`.
    public func reached(_ point: PausePoints.Point) async {
        guard !arrived.contains(point) else { return }
        await withCheckedContinuation { watchers[point, default: []].append($0) }
    }

    /// Lets what waits at `point` go on.
    public func release(_ point: PausePoints.Point) {
        arrived.remove(point)
        held.removeValue(forKey: point)?.resume()
    }

    private func arrive(_ point: PausePoints.Point) async {
        guard armed.remove(point) != nil else { return }
        arrived.insert(point)
        for watcher in watchers.removeValue(forKey: point) ?? [] { watcher.resume() }
        await withCheckedContinuation { held[point] = $0 }
    }
}
