"""What operators read: queues, subscriptions, retained publications, dead letters, the
service's workers and rates. Plain dataclasses out; the CLI and the web console both read
through here, so they show the same thing."""
