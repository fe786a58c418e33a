extension EmulatorHelpersClient {
    /// A client of the emulator's helpers authorised as its owner (`Bearer
    /// owner`): the helpers that change state (delete accounts, move the
    /// clock, trust a service account) need it, as the admin routes do.
    /// - Parameter configuration: Transport, emulator, timeout and logging settings.
    public init(configuration: ClientConfiguration = ClientConfiguration()) {
        self.init(accessToken: { EmulatorAdminToken.owner.rawValue }, configuration: configuration)
    }
}
