package faultproxy

import (
	"fmt"
	"net"
	"net/url"
	"sync"
)

// Proxy forwards TCP connections to one upstream address.
type Proxy struct {
	ln       net.Listener
	upstream string
	url      string

	mu     sync.Mutex
	conns  map[net.Conn]struct{}
	cuts   int
	closed bool
	// thawed is closed while bytes flow; Freeze replaces it with an open channel every pipe
	// waits on, as a stopped server's peers wait.
	thawed chan struct{}
	wg     sync.WaitGroup
}

// New starts a proxy on a loopback port in front of the HTTP URL upstream.
func New(upstream string) (*Proxy, error) {
	u, err := url.Parse(upstream)
	if err != nil || u.Host == "" {
		return nil, fmt.Errorf("faultproxy: upstream %q is not an http URL", upstream)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	p := start(ln, u.Host)
	pu := *u
	pu.Host = ln.Addr().String()
	p.url = pu.String()
	return p, nil
}

// NewTCP starts a proxy on a loopback port in front of the TCP address upstream (host:port), for
// a peer that is not HTTP, such as a database. Addr is where to connect.
func NewTCP(upstream string) (*Proxy, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	return start(ln, upstream), nil
}

func start(ln net.Listener, upstream string) *Proxy {
	thawed := make(chan struct{})
	close(thawed)
	p := &Proxy{ln: ln, upstream: upstream, conns: map[net.Conn]struct{}{}, thawed: thawed}
	p.wg.Add(1)
	go p.accept()
	return p
}

// Addr is the proxy's listening address (host:port).
func (p *Proxy) Addr() string { return p.ln.Addr().String() }

// Freeze stops every byte both ways, on open connections and on those accepted later, until Thaw:
// what a peer of a SIGSTOPped server sees. Connections stay open.
func (p *Proxy) Freeze() {
	p.mu.Lock()
	defer p.mu.Unlock()
	select {
	case <-p.thawed:
		p.thawed = make(chan struct{})
	default: // already frozen
	}
}

// Thaw lets bytes flow again after Freeze.
func (p *Proxy) Thaw() {
	p.mu.Lock()
	defer p.mu.Unlock()
	select {
	case <-p.thawed:
	default:
		close(p.thawed)
	}
}

func (p *Proxy) gate() <-chan struct{} {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.thawed
}

// URL is the upstream URL with the proxy's address.
func (p *Proxy) URL() string { return p.url }

// Cuts is how many times Cut closed at least one connection.
func (p *Proxy) Cuts() int {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.cuts
}

func (p *Proxy) accept() {
	defer p.wg.Done()
	for {
		c, err := p.ln.Accept()
		if err != nil {
			return
		}
		up, err := net.Dial("tcp", p.upstream)
		if err != nil {
			c.Close()
			continue
		}
		if !p.track(c, up) {
			c.Close()
			up.Close()
			return
		}
		p.wg.Add(2)
		go p.pipe(c, up)
		go p.pipe(up, c)
	}
}

func (p *Proxy) track(cs ...net.Conn) bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.closed {
		return false
	}
	for _, c := range cs {
		p.conns[c] = struct{}{}
	}
	return true
}

func (p *Proxy) pipe(dst, src net.Conn) {
	defer p.wg.Done()
	buf := make([]byte, 32<<10)
	for {
		n, err := src.Read(buf)
		if n > 0 {
			<-p.gate() // frozen: hold the bytes until Thaw (or until Close closes dst)
			if _, werr := dst.Write(buf[:n]); werr != nil {
				break
			}
		}
		if err != nil {
			break
		}
	}
	dst.Close()
	src.Close()
	p.mu.Lock()
	delete(p.conns, dst)
	delete(p.conns, src)
	p.mu.Unlock()
}

// Cut closes every open connection, both ways, mid-request or not.
func (p *Proxy) Cut() {
	p.mu.Lock()
	defer p.mu.Unlock()
	if len(p.conns) > 0 {
		p.cuts++
	}
	for c := range p.conns {
		c.Close()
	}
}

// Close stops the proxy and closes every connection: new connections are refused, as by a killed
// server. A frozen proxy is thawed first so its pipes end.
func (p *Proxy) Close() error {
	p.mu.Lock()
	p.closed = true
	p.mu.Unlock()
	err := p.ln.Close()
	p.Cut()
	p.Thaw()
	p.wg.Wait()
	return err
}
