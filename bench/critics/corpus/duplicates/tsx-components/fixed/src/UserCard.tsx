export function UserCard({ user }: { user: { name: string; email: string; avatar?: string; role: string } }) {
  return (
    <div className="card">
      {user.avatar ? <img src={user.avatar} alt="" className="avatar" /> : <span className="avatar-placeholder" />}
      <div className="card-body">
        <h3 className="card-title">{user.name}</h3>
        <p className="card-subtitle">{user.email}</p>
        <span className={`badge badge-${user.role}`}>{user.role}</span>
      </div>
    </div>
  );
}
