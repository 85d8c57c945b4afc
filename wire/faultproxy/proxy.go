package faultproxy

import (
	"fmt"
	"io"
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
	p := &Proxy{ln: ln, upstream: u.Host, conns: map[net.Conn]struct{}{}}
	pu := *u
	pu.Host = ln.Addr().String()
	p.url = pu.String()
	p.wg.Add(1)
	go p.accept()
	return p, nil
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
	_, _ = io.Copy(dst, src)
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

// Close stops the proxy and closes every connection.
func (p *Proxy) Close() error {
	p.mu.Lock()
	p.closed = true
	p.mu.Unlock()
	err := p.ln.Close()
	p.Cut()
	p.wg.Wait()
	return err
}
