package learn

import "sync"

// pool is a fixed set of worker goroutines for one training run. Job j sent
// to worker w runs run(w, j); a worker runs its jobs in the order sent. The
// trainer decides which worker gets which job, so results never depend on
// scheduling.
type pool struct {
	jobs []chan int
	wg   sync.WaitGroup
	run  func(worker, job int)
}

func newPool(n int, run func(worker, job int)) *pool {
	p := &pool{jobs: make([]chan int, n), run: run}
	for w := range p.jobs {
		p.jobs[w] = make(chan int, 64)
		go p.loop(w)
	}
	return p
}

func (p *pool) loop(w int) {
	for j := range p.jobs[w] {
		p.run(w, j)
		p.wg.Done()
	}
}

// submit queues job j on worker w.
func (p *pool) submit(w, j int) {
	p.wg.Add(1)
	p.jobs[w] <- j
}

// wait blocks until every submitted job has finished.
func (p *pool) wait() { p.wg.Wait() }

// close stops the workers.
func (p *pool) close() {
	for _, c := range p.jobs {
		close(c)
	}
}
