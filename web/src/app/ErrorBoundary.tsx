// Keeps one failing panel from blanking the whole app: it shows the error in place.

import { Component, type ReactNode } from 'react';

export class ErrorBoundary extends Component<{ name: string; children: ReactNode }, { error: Error | null }> {
  override state = { error: null as Error | null };

  static getDerivedStateFromError(error: Error) {
    return { error };
  }

  override render() {
    if (this.state.error) {
      return (
        <div className="error" role="alert">
          The {this.props.name} failed: {this.state.error.message}{' '}
          <button onClick={() => this.setState({ error: null })}>retry</button>
        </div>
      );
    }
    return this.props.children;
  }
}
