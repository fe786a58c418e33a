import Hummingbird

/// The request context of the app's routes: Hummingbird's basic context
/// plus the connection's peer address, for the per-address attempt limits.
public struct AppRequestContext: RequestContext {
    /// Hummingbird's storage for every context.
    public var coreContext: CoreRequestContextStorage
    /// The connection's peer (the proxy's address behind one); nil when
    /// there is no network connection (HummingbirdTesting's router tests).
    public let remoteAddress: String?

    /// Reads the peer address from the request's channel.
    public init(source: ApplicationRequestContextSource) {
        coreContext = CoreRequestContextStorage(source: source)
        remoteAddress = source.channel.remoteAddress?.ipAddress
    }
}
